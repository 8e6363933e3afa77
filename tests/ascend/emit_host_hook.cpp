// Makes a violated host-API rule throw (a failing test) instead of aborting the test binary.
#include <stdexcept>
#include <string>

#include "kernel_operator.h"

namespace asc::test {

void emit_throw_on_host_fail() {
  AscendC::HostFailHook() = [](const char* what, const char* detail) {
    throw std::runtime_error(std::string("Ascend C host API: ") + what + ": " + detail);
  };
}

}  // namespace asc::test
