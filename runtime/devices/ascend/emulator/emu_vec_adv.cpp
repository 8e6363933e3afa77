// The accesses of the advanced vector APIs and their temporary space (emu_vec_adv.h).
#include "emu_vec_adv.h"

namespace ascemu {

namespace {

bool overlap(const Access& a, const Access& b) {
  return a.begin < b.end && b.begin < a.end;
}

std::string range(const Access& a) {
  std::string s = "[";
  s += std::to_string(a.begin);
  s += ", ";
  s += std::to_string(a.end);
  s += ")";
  return s;
}

// The temp a given sharedTmpBuffer provides: in UB, 32-byte aligned, at least sz.min bytes.
Access given_temp(const char* call, const AscendC::LocalTensor<uint8_t>& t, TmpSize sz,
                  const char* type) {
  vec_operand(call, t, 0, true);
  check(t.GetSize() >= sz.min, call,
        "sharedTmpBuffer holds " + std::to_string(t.GetSize()) + " bytes; " + type +
            " needs at least " + std::to_string(sz.min));
  return Access{Mem::kUB, t.HostOffset(), t.HostOffset() + std::min<uint64_t>(t.GetSize(), sz.max),
                true};
}

// The temp the framework takes: the UB after the TPipe's last allocation (32-byte aligned).
Access stack_temp(const char* call, TmpSize sz, const char* type) {
  Core& c = current();
  check(!c.aic(), call, "vector calls run on an AIV (vector core), not on the AIC");
  const uint64_t cap = c.capacity(Mem::kUB);
  const uint64_t begin = std::min<uint64_t>((c.ub_end + 31) / 32 * 32, cap);
  const uint64_t left = cap - begin;
  check(left >= sz.min, call,
        "the framework takes its temporary space from the UB the TPipe left over: " +
            std::to_string(left) + " bytes after the TPipe's " + std::to_string(c.ub_end) + " of " +
            std::to_string(cap) + "; " + type + " needs at least " + std::to_string(sz.min) +
            " (InitBuffer less, or pass a sharedTmpBuffer)");
  return Access{Mem::kUB, begin, begin + std::min(left, sz.max), true};
}

}  // namespace

std::vector<Access> adv_accesses(const char* call, const std::vector<Access>& srcs,
                                 const Access& dst, const AscendC::LocalTensor<uint8_t>* given,
                                 TmpSize sz, const char* type, bool src_dst_overlap,
                                 bool reuse_source) {
  std::vector<Access> acc = srcs;
  for (const Access& s : srcs)
    check(src_dst_overlap || !overlap(s, dst), call,
          "source UB bytes " + range(s) + " overlap dst " + range(dst) +
              " (the API does not allow it)");
  // A given buffer is checked even where the call needs no temp (as the API takes it).
  if (given || sz.max > 0) {
    const Access t = given ? given_temp(call, *given, sz, type) : stack_temp(call, sz, type);
    if (t.end > t.begin) {
      for (const Access& s : srcs)
        check(!overlap(t, s), call,
              std::string(given ? "sharedTmpBuffer" : "the framework's temporary space") +
                  " UB bytes " + range(t) + " overlap a source " + range(s));
      check(!overlap(t, dst), call,
            std::string(given ? "sharedTmpBuffer" : "the framework's temporary space") +
                " UB bytes " + range(t) + " overlap dst " + range(dst));
      acc.push_back(t);
    }
  }
  if (reuse_source)
    for (Access s : srcs) {
      s.write = true;
      acc.push_back(s);
    }
  acc.push_back(dst);
  return acc;
}

}  // namespace ascemu
