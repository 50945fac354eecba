# Post-link footprint of a firmware image, with the model and the arena shown apart:
#   cmake -DNM=arm-none-eabi-nm -DSIZE=arm-none-eabi-size -DELF=img.elf -DOUT=img.footprint.txt
#         [-DMODEL_SYMBOL=attnrt_lm_model_data] [-DKV_HEADER=lm_expected.h] -P footprint.cmake
# flash = text + data (code, constants, the .data load image), RAM = data + bss (which
# includes the main stack and the NOLOAD .attnrt_arena). The model is the symbol
# MODEL_SYMBOL (default attnrt_model_data), the arena g_arena. With KV_HEADER (lm_fw's
# lm_expected.h) the KV cache part of the arena, LM_KV_CACHE_BYTES, is shown too.
cmake_minimum_required(VERSION 3.25)

execute_process(COMMAND "${SIZE}" "${ELF}" OUTPUT_VARIABLE berkeley RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "footprint: ${SIZE} failed on ${ELF}")
endif()
# Second line: "   text    data     bss     dec     hex filename"
string(REGEX MATCH "\n *([0-9]+)[ \t]+([0-9]+)[ \t]+([0-9]+)" _ "${berkeley}")
set(text ${CMAKE_MATCH_1})
set(data ${CMAKE_MATCH_2})
set(bss ${CMAKE_MATCH_3})

execute_process(COMMAND "${NM}" -S -C --format=bsd "${ELF}" OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "footprint: ${NM} failed on ${ELF}")
endif()
function(symbol_size regex out_var)
  string(REGEX MATCH "[0-9a-f]+ ([0-9a-f]+) [a-zA-Z] [^\n]*${regex}" _ "${symbols}")
  if(CMAKE_MATCH_1)
    math(EXPR bytes "0x${CMAKE_MATCH_1}")
  else()
    set(bytes 0)
  endif()
  set(${out_var} ${bytes} PARENT_SCOPE)
endfunction()
if(NOT MODEL_SYMBOL)
  set(MODEL_SYMBOL attnrt_model_data)
endif()
symbol_size("${MODEL_SYMBOL}\n" model)
symbol_size("g_arena\n" arena)
# The stack is the linker script's .stack section: __stack_top - __stack_limit.
string(REGEX MATCH "([0-9a-f]+) [a-zA-Z] __stack_limit" _ "${symbols}")
set(limit ${CMAKE_MATCH_1})
string(REGEX MATCH "([0-9a-f]+) [a-zA-Z] __stack_top" _ "${symbols}")
set(top ${CMAKE_MATCH_1})
if(limit AND top)
  math(EXPR stack "0x${top} - 0x${limit}")
else()
  set(stack 0)
endif()

math(EXPR flash "${text} + ${data}")
math(EXPR flash_rest "${flash} - ${model}")
math(EXPR ram "${data} + ${bss}")
math(EXPR ram_rest "${ram} - ${arena} - ${stack}")
set(kv "")
if(KV_HEADER)
  file(STRINGS "${KV_HEADER}" kv_line REGEX "#define LM_KV_CACHE_BYTES [0-9]+u")
  if(NOT kv_line MATCHES "LM_KV_CACHE_BYTES ([0-9]+)u")
    message(FATAL_ERROR "footprint: no LM_KV_CACHE_BYTES in ${KV_HEADER}")
  endif()
  set(kv " (KV cache ${CMAKE_MATCH_1})")
endif()
get_filename_component(name "${ELF}" NAME)
set(report
"${name}: flash ${flash} B = model ${model} + code/constants ${flash_rest}; \
RAM ${ram} B = arena ${arena}${kv} + stack ${stack} + other ${ram_rest} \
(arm-none-eabi-size: text ${text} data ${data} bss ${bss})")
message(STATUS "footprint: ${report}")
if(OUT)
  file(WRITE "${OUT}" "${report}\n")
endif()
