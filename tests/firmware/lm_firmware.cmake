# lm_fw / lm_fw_<dtype> (q8, q4_0): the byte-level demo language model (models/lm) generating text on
# the board through the C API (lm_fw_main.c), checked token by token against the host
# attnrt. Included by tests/firmware/CMakeLists.txt, which sets gen_dir and defines
# attnrt_fw_embedded_model, attnrt_fw_device_plan, attnrt_fw_footprint and
# attnrt_fw_variant_suffix.
#
# For each weight dtype: the host converts models/lm and embeds it in .attnrt_weights
# (lm_data.c/.h), an lm_plan_fw image plans the session on the target under qemu
# (device_plan.h), and the host generates the expected tokens (lm_expected.h).
set(lm_dir "${PROJECT_SOURCE_DIR}/models/lm")
set(lm_prompt "In the beginning")
set(lm_new_tokens 32)
string(LENGTH "${lm_prompt}" lm_prompt_len)  # byte-level: one token per byte
math(EXPR lm_max_seq "${lm_prompt_len} + ${lm_new_tokens}")

# C99 without extensions, and warnings as errors: the image is written the way a C
# firmware customer would write it, so the C API header must pass these too.
set_source_files_properties(lm_fw_main.c lm_plan_fw_main.c
  PROPERTIES COMPILE_OPTIONS "-std=c99;-Wall;-Wextra;-Werror;-pedantic")

function(attnrt_add_lm_firmware dtype)
  attnrt_fw_variant_suffix(${dtype} suffix)
  set(dir "${gen_dir}/lm_${dtype}")
  set(model_file "${dir}/lm.attnrt")
  set(model_source "${dir}/lm_data.c")
  set(model_header "${dir}/lm_data.h")
  set(plan_header "${dir}/device_plan.h")
  set(expected_header "${dir}/lm_expected.h")
  attnrt_fw_embedded_model("demo language model" ${dtype} "${lm_dir}" "${model_file}"
    "${model_source}" "${model_header}"
    EMBED --name attnrt_lm_model --section .attnrt_weights --seq ${lm_max_seq})
  add_custom_command(
    OUTPUT "${expected_header}"
    COMMAND "${CMAKE_COMMAND}" "-DATTNRT=${host_attnrt}" "-DMODEL=${model_file}"
            "-DPROMPT=${lm_prompt}" -DCOUNT=${lm_new_tokens} -DMAX_SEQ=${lm_max_seq}
            -DDTYPE=${dtype} "-DOUT=${expected_header}"
            -P "${CMAKE_CURRENT_SOURCE_DIR}/lm_expected.cmake"
    DEPENDS "${host_attnrt}" ${host_attnrt_target} "${model_file}"
            "${CMAKE_CURRENT_SOURCE_DIR}/lm_expected.cmake"
    COMMENT "Generating the host's ${lm_new_tokens} greedy tokens (${dtype}) for lm_expected.h"
    VERBATIM)

  attnrt_fw_device_plan("${dtype} language model" lm_plan_fw${suffix} "${plan_header}"
    SOURCES lm_plan_fw_main.c "${model_source}" "${model_header}"
    LIBS attnrt::c
    INCLUDE_DIRS "${dir}")

  # 16 KiB of stack: the C API's handles are static in the image, not on the stack.
  attnrt_add_firmware(lm_fw${suffix}
    SOURCES lm_fw_main.c "${model_source}" "${model_header}" "${plan_header}" "${expected_header}"
    LIBS attnrt::c
    STACK_SIZE 0x4000
    TIMEOUT 120)
  target_include_directories(lm_fw${suffix} PRIVATE "${dir}")

  attnrt_fw_footprint(lm_fw${suffix} -DMODEL_SYMBOL=attnrt_lm_model_data
                      "-DKV_HEADER=${expected_header}")
endfunction()

attnrt_add_lm_firmware(f32)
attnrt_add_lm_firmware(q8)
attnrt_add_lm_firmware(q4_0)
