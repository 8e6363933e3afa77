# -DASC_WITH_CANN=ON: the ascend device (docs/ASCENDC.md, "The ascend device"). Finds the CANN
# toolkit from ASCEND_HOME_PATH (set by ${toolkit}/set_env.sh), its ACL headers and libascendcl,
# the kernel compiler (bisheng) and the Ascend C headers, and adds
# runtime/devices/ascend/acl_*.cpp to asc_runtime with ASC_WITH_CANN defined. Never run where asc
# is developed (no CANN there).
set(ASC_CANN_HOME "" CACHE PATH "CANN toolkit (empty: $ASCEND_HOME_PATH at configure time)")
set(ASC_CANN_ROOT "${ASC_CANN_HOME}")
if(NOT ASC_CANN_ROOT)
  set(ASC_CANN_ROOT "$ENV{ASCEND_HOME_PATH}")
endif()
if(NOT ASC_CANN_ROOT)
  message(FATAL_ERROR "ASC_WITH_CANN=ON needs the CANN toolkit: ASCEND_HOME_PATH is not set "
                      "(source <toolkit>/set_env.sh, or pass -DASC_CANN_HOME=<toolkit>)")
endif()
if(NOT EXISTS "${ASC_CANN_ROOT}/include/acl/acl.h")
  message(FATAL_ERROR "ASC_WITH_CANN=ON: no CANN toolkit at '${ASC_CANN_ROOT}' "
                      "(include/acl/acl.h not found; ASCEND_HOME_PATH should name the toolkit)")
endif()
find_library(ASC_CANN_ASCENDCL ascendcl PATHS "${ASC_CANN_ROOT}/lib64" "${ASC_CANN_ROOT}/lib"
             NO_DEFAULT_PATH)
find_program(ASC_CANN_BISHENG bisheng PATHS "${ASC_CANN_ROOT}/compiler/ccec_compiler/bin"
             NO_DEFAULT_PATH)
# The Ascend C headers (kernel_operator.h) and the kernel CMake support the emitted projects use
# (asc-run --emit-ascendc) sit under compiler/tikcpp, or tools/tikcpp in some layouts.
find_path(ASC_CANN_TIKCFW kernel_operator.h
          PATHS "${ASC_CANN_ROOT}/compiler/tikcpp/tikcfw" "${ASC_CANN_ROOT}/tools/tikcpp/tikcfw"
          NO_DEFAULT_PATH)
find_path(ASC_CANN_KERNEL_CMAKE ascendc.cmake
          PATHS "${ASC_CANN_ROOT}/compiler/tikcpp/ascendc_kernel_cmake"
                "${ASC_CANN_ROOT}/tools/tikcpp/ascendc_kernel_cmake"
          NO_DEFAULT_PATH)
foreach(what ASC_CANN_ASCENDCL ASC_CANN_BISHENG ASC_CANN_TIKCFW ASC_CANN_KERNEL_CMAKE)
  if(NOT ${what})
    message(FATAL_ERROR "ASC_WITH_CANN=ON: ${what} not found under '${ASC_CANN_ROOT}' "
                        "(libascendcl, compiler/ccec_compiler/bin/bisheng, "
                        "compiler/tikcpp/tikcfw/kernel_operator.h, "
                        "compiler/tikcpp/ascendc_kernel_cmake/ascendc.cmake)")
  endif()
endforeach()
message(STATUS "CANN: ${ASC_CANN_ROOT} (bisheng ${ASC_CANN_BISHENG}, ${ASC_CANN_ASCENDCL})")

file(GLOB ASC_ACL_SRC CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/runtime/devices/ascend/acl_*.cpp)
target_sources(asc_runtime PRIVATE ${ASC_ACL_SRC})
# PUBLIC: sim::device_names() and Model (in asc_runtime) name the ascend device; consumers see it.
target_compile_definitions(asc_runtime PUBLIC ASC_WITH_CANN
                           PRIVATE ASC_CANN_HOME="${ASC_CANN_ROOT}"
                                   ASC_CANN_BISHENG="${ASC_CANN_BISHENG}"
                                   ASC_CANN_TIKCFW="${ASC_CANN_TIKCFW}")
target_include_directories(asc_runtime PRIVATE "${ASC_CANN_ROOT}/include")
target_link_libraries(asc_runtime PUBLIC ${ASC_CANN_ASCENDCL})
