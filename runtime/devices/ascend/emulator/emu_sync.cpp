// The emulator's flag checks (emu_sync.h).
#include "emu_sync.h"

#include <string>

namespace ascemu {

namespace {
bool core_has_pipe(bool aic, int pipe) {
  if (pipe == kS || pipe == kMTE2 || pipe == kMTE3) return true;
  return aic ? pipe == kM || pipe == kMTE1 || pipe == kFIX : pipe == kV;
}
}  // namespace

const char* flag_call(int src, int dst, int32_t id, bool set) {
  check(src >= 0 && dst >= 0, set ? "SetFlag" : "WaitFlag", "PIPE_ALL is not a pipe of a flag");
  static std::string names[kPipes][kPipes][2];
  std::string& n = names[src][dst][set ? 1 : 0];
  if (n.empty())
    n = std::string(set ? "SetFlag" : "WaitFlag") + "<HardEvent::" + pipe_name(src) + "_" +
        pipe_name(dst) + ">";
  check(id >= 0 && id < 8, n.c_str(), "event id " + std::to_string(id) + " outside 0..7");
  const Core& c = current();
  for (int p : {src, dst})
    check(core_has_pipe(c.aic(), p), n.c_str(),
          std::string(c.aic() ? "an AIC (cube core)" : "an AIV (vector core)") + " has no " +
              pipe_name(p) + " pipe" +
              (c.aic() ? ""
                       : "; cube results reach a vector core through GM (Fixpipe, then "
                         "CrossCoreSetFlag/CrossCoreWaitFlag)"));
  return n.c_str();
}

const char* flag_call(AscendC::HardEvent e, int32_t id, bool set, int& src, int& dst) {
  event_pipes(e, src, dst);
  return flag_call(src, dst, id, set);
}

}  // namespace ascemu
