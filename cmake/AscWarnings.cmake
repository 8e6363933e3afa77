# Warning-free with -Wall -Wextra is a project rule; ASC_WERROR turns warnings into errors (CI).
option(ASC_WERROR "Treat warnings as errors" OFF)
function(asc_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra)
  if(ASC_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
