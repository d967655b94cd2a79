# The form of a list of CUDA architectures the workbook builds for, checked in one place: before
# project() (CMake's own check there names forms the workbook refuses, such as all), and again
# after cmake/Architectures.cmake resolves native. Each item is a compute capability of 8.0 or newer
# as CMake writes one (90: machine code and PTX; 90a, 100f: architecture- or family-specific;
# -real or -virtual for one of the two); `what` names the variable, as its user set it.
function(workbook_check_architectures what list)
  foreach(architecture IN LISTS list)
    if(NOT architecture MATCHES "^([0-9]+)[af]?(-real|-virtual)?$")
      message(FATAL_ERROR "${what}='${list}': '${architecture}' is not a CUDA architecture the workbook builds for: "
        "write a compute capability as CMake does, e.g. 90 (9.0: machine code and PTX), \"80;90\", 90a, 90-real or "
        "90-virtual, or native (compute capability 9.0 is 90, not sm_90)")
    endif()
    if(CMAKE_MATCH_1 LESS 80)
      message(FATAL_ERROR "${what}='${list}': the labs need compute capability 8.0 or newer (cp.async, the copy "
        "engine), so ${architecture} cannot be one of them")
    endif()
  endforeach()
endfunction()
