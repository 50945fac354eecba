# Post-link check used by attnrt_add_firmware(): fails if the image contains the heap.
#   cmake -DNM=arm-none-eabi-nm -DELF=image.elf -P check_no_heap.cmake
# On failure the ELF is deleted, so the next build links (and checks) it again instead
# of treating the bad image as up to date.
cmake_minimum_required(VERSION 3.25)

if(NOT NM OR NOT ELF)
  message(FATAL_ERROR "check_no_heap: pass -DNM=<nm> -DELF=<image>")
endif()

# Allocation entry points of newlib and libsupc++ (ARM: size_t is unsigned int, so
# operator new is _Znwj/_Znaj; the m-variants are what a 64-bit size_t would give).
set(forbidden
  malloc free calloc realloc memalign aligned_alloc posix_memalign
  _malloc_r _free_r _calloc_r _realloc_r _memalign_r
  _sbrk _sbrk_r sbrk
  _Znwj _Znaj _Znwm _Znam
  _ZnwjRKSt9nothrow_t _ZnajRKSt9nothrow_t _ZnwmRKSt9nothrow_t _ZnamRKSt9nothrow_t
  _ZnwjSt11align_val_t _ZnajSt11align_val_t _ZnwmSt11align_val_t _ZnamSt11align_val_t
  __cxa_allocate_exception)

execute_process(COMMAND "${NM}" --format=posix "${ELF}"
  OUTPUT_VARIABLE symbols RESULT_VARIABLE nm_result ERROR_VARIABLE nm_error)
if(NOT nm_result EQUAL 0)
  file(REMOVE "${ELF}")
  message(FATAL_ERROR "check_no_heap: ${NM} failed on ${ELF}: ${nm_error}")
endif()

# posix format: "<name> <type> [<value> [<size>]]", one symbol per line.
string(REPLACE "\n" ";" lines "${symbols}")
set(found "")
foreach(line IN LISTS lines)
  string(REGEX MATCH "^[^ ]+" sym "${line}")
  if(sym AND sym IN_LIST forbidden)
    list(APPEND found "${sym}")
  endif()
endforeach()

if(found)
  list(REMOVE_DUPLICATES found)
  file(REMOVE "${ELF}")
  message(FATAL_ERROR "check_no_heap: ${ELF} links the heap: ${found}\n"
    "Firmware must not allocate. Find who pulls it in with the link map "
    "(<image>.map, section 'Archive member included to satisfy reference').")
endif()
message(STATUS "check_no_heap: no heap symbols in ${ELF}")
