// The emulator's synchronisation calls (include kernel_operator.h): SetFlag/WaitFlag between two
// pipes of a core, PipeBarrier within one, and TQueSync. A pipe pair the core does not have
// (the vector core has S, V, MTE2, MTE3; the cube core S, M, MTE1, MTE2, MTE3, FIX) is refused.
#pragma once

#include "emu_core.h"

namespace ascemu {
// Checks the event and id for the current core and returns the call's name ("SetFlag<V_MTE3>").
const char* flag_call(AscendC::HardEvent e, int32_t id, bool set, int& src, int& dst);
const char* flag_call(int src, int dst, int32_t id, bool set);
}  // namespace ascemu

namespace AscendC {

// The trailing defaulted arguments (not the API's) name the call's site for the mutation test.
template <HardEvent event>
inline void SetFlag(int32_t eventID, const char* file = __builtin_FILE(),
                    int line = __builtin_LINE()) {
  if (!ascemu::sync_kept(file, line)) return;
  int s, d;
  const char* name = ascemu::flag_call(event, eventID, true, s, d);
  ascemu::Core& c = ascemu::current();
  c.issue_set(s, &c.flag(s, d, eventID), name);
}

template <HardEvent event>
inline void WaitFlag(int32_t eventID, const char* file = __builtin_FILE(),
                     int line = __builtin_LINE()) {
  if (!ascemu::sync_kept(file, line)) return;
  int s, d;
  const char* name = ascemu::flag_call(event, eventID, false, s, d);
  ascemu::Core& c = ascemu::current();
  c.issue_wait(d, &c.flag(s, d, eventID), name);
}

template <pipe_t pipe>
inline void PipeBarrier(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  static_assert(pipe != PIPE_S, "PipeBarrier does not take PIPE_S: the scalar unit is in order");
  if (!ascemu::sync_kept(file, line)) return;
  ascemu::current().barrier(ascemu::pipe_index(pipe));
}

using TEventID = int8_t;

template <pipe_t src, pipe_t dst>
class TQueSync {
 public:
  void SetFlag(TEventID id, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    if (!ascemu::sync_kept(file, line)) return;
    const int s = ascemu::pipe_index(src), d = ascemu::pipe_index(dst);
    const char* name = ascemu::flag_call(s, d, id, true);
    ascemu::Core& c = ascemu::current();
    c.issue_set(s, &c.flag(s, d, id), name);
  }
  void WaitFlag(TEventID id, const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    if (!ascemu::sync_kept(file, line)) return;
    const int s = ascemu::pipe_index(src), d = ascemu::pipe_index(dst);
    const char* name = ascemu::flag_call(s, d, id, false);
    ascemu::Core& c = ascemu::current();
    c.issue_wait(d, &c.flag(s, d, id), name);
  }
};

}  // namespace AscendC
