// The cube unit's data movement into L1, L0A/L0B and the bias table (emu_cube.h has the layouts).
#include <algorithm>
#include <cstring>

#include "emu_cube_util.h"

namespace ascemu {
namespace cube {

const char* dt_name(Dt d) {
  static const char* const kNames[] = {"half",    "bfloat16_t", "float",   "int8_t",   "uint8_t",
                                       "int16_t", "uint16_t",   "int32_t", "uint32_t", "this type"};
  return kNames[static_cast<int>(d)];
}

uint32_t dt_size(Dt d) {
  switch (d) {
    case Dt::kS8:
    case Dt::kU8:
      return 1;
    case Dt::kF16:
    case Dt::kBF16:
    case Dt::kS16:
    case Dt::kU16:
      return 2;
    case Dt::kF32:
    case Dt::kS32:
    case Dt::kU32:
      return 4;
    default:
      return 0;
  }
}

void need_aic(const char* call) {
  check(current().aic(), call, "cube calls run on an AIC (cube core), not on an AIV");
}

void need_local(const char* call, const char* what, const Opnd& o, std::initializer_list<Mem> mems,
                uint64_t align) {
  bool ok = false;
  std::string names;
  for (Mem m : mems) {
    ok |= o.mem == m;
    names += std::string(names.empty() ? "" : " or ") + mem_name(m);
  }
  check(ok, call,
        std::string(what) + " in " + mem_name(o.mem) + " (position " + position_name(o.pos) +
            "), not " + names);
  check(o.off % align == 0, call,
        std::string(what) + ": " + mem_name(o.mem) + " address " + num(o.off) + " is not " +
            num(align) + "-byte aligned");
}

void need_inside(const char* call, const char* what, const Opnd& o, uint64_t bytes) {
  check(bytes <= o.bytes, call,
        std::string(what) + ": " + num(bytes) + " bytes from " + mem_name(o.mem) + " address " +
            num(o.off) + " past the tensor's " + num(o.bytes) + " bytes");
  const uint64_t cap = current().capacity(o.mem);
  check(o.off + bytes <= cap, call,
        std::string(what) + ": " + num(bytes) + " bytes from " + mem_name(o.mem) + " address " +
            num(o.off) + " past " + mem_name(o.mem) + "'s " + num(cap) + " bytes");
}

void need_gm(const char* call, const Gm& g, uint64_t bytes) {
  check(bytes <= g.bytes, call,
        num(bytes) + " bytes past a GlobalTensor of " + num(g.bytes) + " bytes");
  check_gm(call, reinterpret_cast<const void*>(g.addr), bytes);
}

namespace {

void need_range(const char* call, const char* field, uint64_t v, uint64_t lo, uint64_t hi) {
  check(v >= lo && v <= hi, call,
        std::string(field) + " " + num(v) + " outside " + num(lo) + ".." + num(hi));
}

// The i-th source index of a repeat: start + srcStride * i, or minus with addrMode 1.
int64_t repeat_index(const char* call, uint16_t start, uint16_t stride, uint8_t mode, uint32_t i) {
  check(mode <= 1, call, "addrMode " + num(mode) + " is neither 0 nor 1");
  const int64_t v = int64_t{start} + (mode ? -1 : 1) * int64_t{stride} * i;
  check(v >= 0, call,
        "addrMode 1 takes the source index below 0 at repeat " + num(i) + " (startIndex " +
            num(start) + ", srcStride " + num(stride) + ")");
  return v;
}

}  // namespace

void nd2nz(const Opnd& dst, const Gm& src, Dt t, const AscendC::Nd2NzParams& p) {
  const char* call = "DataCopy(Nd2NzParams)";
  need_aic(call);
  check(t != Dt::kOther, call,
        "ND2NZ takes int8_t, uint8_t, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t or "
        "float here (int4b_t is not emulated)");
  need_local(call, "dst", dst, {Mem::kL1}, 32);
  need_range(call, "ndNum", p.ndNum, 0, 4095);
  need_range(call, "nValue", p.nValue, 0, 16384);
  need_range(call, "srcDValue", p.srcDValue, 1, 65535);
  need_range(call, "dstNzC0Stride", p.dstNzC0Stride, 1, 16384);
  need_range(call, "dstNzNStride", p.dstNzNStride, 1, 16384);
  need_range(call, "dstNzMatrixStride", p.dstNzMatrixStride, 0, 16384);
  if (p.ndNum == 0 || p.nValue == 0 || p.dValue == 0) return;  // a NOP
  const uint64_t es = dt_size(t), c0 = 32 / es, d1 = ceil_div(p.dValue, c0);
  const uint64_t gm_end = (uint64_t{p.ndNum - 1u} * p.srcNdMatrixStride +
                           uint64_t{p.nValue - 1u} * p.srcDValue + p.dValue) *
                          es;
  need_gm(call, src, gm_end);
  const uint64_t l1_end =
      uint64_t{p.ndNum - 1u} * p.dstNzMatrixStride * es +
      ((d1 - 1) * p.dstNzC0Stride + uint64_t{p.nValue - 1u} * p.dstNzNStride) * 32 + 32;
  need_inside(call, "dst", dst, l1_end);
  Ranges reads, writes;
  for (uint64_t i = 0; i < p.ndNum; ++i) {
    for (uint64_t r = 0; r < p.nValue; ++r) {
      const uint64_t s = src.addr + (i * p.srcNdMatrixStride + r * p.srcDValue) * es;
      reads.add(Mem::kGM, s, s + p.dValue * es, false);
    }
    for (uint64_t c1 = 0; c1 < d1; ++c1)
      for (uint64_t r = 0; r < p.nValue; ++r) {
        const uint64_t d = dst.off + i * p.dstNzMatrixStride * es +
                           (c1 * p.dstNzC0Stride + r * p.dstNzNStride) * 32;
        writes.add(Mem::kL1, d, d + 32, true);
      }
  }
  std::vector<Access> acc = reads.take();
  for (const Access& a : writes.take()) acc.push_back(a);
  const uint8_t* g = host(Mem::kGM, src.addr);
  uint8_t* l1 = host(Mem::kL1, dst.off);
  const AscendC::Nd2NzParams q = p;
  current().issue(kMTE2, call, std::move(acc), [=] {
    for (uint64_t i = 0; i < q.ndNum; ++i)
      for (uint64_t r = 0; r < q.nValue; ++r)
        for (uint64_t c1 = 0; c1 < d1; ++c1) {
          uint8_t* d =
              l1 + i * q.dstNzMatrixStride * es + (c1 * q.dstNzC0Stride + r * q.dstNzNStride) * 32;
          const uint64_t have = std::min<uint64_t>(c0, q.dValue - c1 * c0);
          std::memcpy(d, g + (i * q.srcNdMatrixStride + r * q.srcDValue + c1 * c0) * es, have * es);
          std::memset(d + have * es, 0, (c0 - have) * es);  // pads the row to 32 bytes with 0
        }
  });
}

void load2d(const Opnd& dst, const Opnd* src_l1, const Gm* src_gm, Dt t,
            const AscendC::LoadData2DParams& p) {
  const char* call = "LoadData(LoadData2DParams)";
  need_aic(call);
  check(t != Dt::kOther, call, "LoadData of this element type is not emulated (int4b_t)");
  need_local(call, "dst", dst, {Mem::kL0A, Mem::kL0B}, 512);
  if (src_l1) need_local(call, "src", *src_l1, {Mem::kL1}, 32);
  const uint32_t es = dt_size(t);
  if (p.ifTranspose) {
    check(src_l1 != nullptr, call, "ifTranspose needs the source in L1, not GM");
    check(es == 2, call,
          std::string("ifTranspose takes 16-bit types, not ") + dt_name(t) +
              " (LoadDataWithTranspose transposes 8- and 32-bit types)");
  }
  if (p.repeatTimes == 0) return;  // a NOP
  const uint32_t n = p.repeatTimes;
  const int64_t first = repeat_index(call, p.startIndex, p.srcStride, p.addrMode, 0);
  const int64_t last = repeat_index(call, p.startIndex, p.srcStride, p.addrMode, n - 1);
  const uint64_t src_end = (static_cast<uint64_t>(std::max(first, last)) + 1) * 512;
  const uint64_t dstep = (uint64_t{p.dstGap} + 1) * 512, dst_end = (n - 1) * dstep + 512;
  need_inside(call, "dst", dst, dst_end);
  Mem smem = Mem::kGM;
  uint64_t sbase;
  if (src_l1) {
    need_inside(call, "src", *src_l1, src_end);
    smem = Mem::kL1;
    sbase = src_l1->off;
  } else {
    need_gm(call, *src_gm, src_end);
    sbase = src_gm->addr;
  }
  Ranges acc;
  std::vector<uint64_t> src_at(n);
  for (uint32_t i = 0; i < n; ++i) {
    src_at[i] = static_cast<uint64_t>(repeat_index(call, p.startIndex, p.srcStride, p.addrMode, i));
    acc.add(smem, sbase + src_at[i] * 512, sbase + src_at[i] * 512 + 512, false);
  }
  for (uint32_t i = 0; i < n; ++i)
    acc.add(dst.mem, dst.off + i * dstep, dst.off + i * dstep + 512, true);
  const uint8_t* s = host(smem, sbase);
  uint8_t* d = host(dst.mem, dst.off);
  const bool transpose = p.ifTranspose;
  current().issue(src_l1 ? kMTE1 : kMTE2, call, acc.take(), [=] {
    for (uint32_t i = 0; i < n; ++i) {
      const uint8_t* f = s + src_at[i] * 512;
      uint8_t* o = d + i * dstep;
      if (!transpose) {
        std::memcpy(o, f, 512);
        continue;
      }
      for (int r = 0; r < 16; ++r)  // 16 x 16 two-byte elements: row r of o is column r of f
        for (int c = 0; c < 16; ++c) std::memcpy(o + (r * 16 + c) * 2, f + (c * 16 + r) * 2, 2);
    }
  });
}

void load2d_transpose(const Opnd& dst, const Opnd& src, Dt t,
                      const AscendC::LoadData2dTransposeParams& p) {
  const char* call = "LoadDataWithTranspose";
  need_aic(call);
  check(t != Dt::kOther, call,
        "LoadDataWithTranspose of this element type is not emulated (int4b_t)");
  need_local(call, "dst", dst, {Mem::kL0A, Mem::kL0B}, 512);
  need_local(call, "src", src, {Mem::kL1}, 32);
  if (p.repeatTimes == 0) return;  // a NOP
  const uint32_t es = dt_size(t), n = p.repeatTimes;
  // The square: b16 one 16 x 16 fractal; b32 two 16 x 8 fractals side by side (16 x 16); b8 two
  // 16 x 32 fractals one over the other (32 x 32). Its transpose splits the other way: b32 into
  // columns 0..7 and 8..15, b8 into rows 0..15 and 16..31.
  const uint64_t sq = es == 2 ? 512 : 1024, side = es == 1 ? 32 : 16;
  const uint64_t dstep = (uint64_t{p.dstGap} + 1) * 512;
  const uint64_t second = (uint64_t{p.dstFracGap} + 1) * 512;  // the second fractal's offset
  const int64_t first = repeat_index(call, p.startIndex, p.srcStride, p.addrMode, 0);
  const int64_t last = repeat_index(call, p.startIndex, p.srcStride, p.addrMode, n - 1);
  need_inside(call, "src", src, (static_cast<uint64_t>(std::max(first, last)) + 1) * sq);
  need_inside(call, "dst", dst, (n - 1) * dstep + (es == 2 ? 512 : second + 512));
  Ranges acc;
  std::vector<uint64_t> src_at(n);
  for (uint32_t i = 0; i < n; ++i) {
    src_at[i] = static_cast<uint64_t>(repeat_index(call, p.startIndex, p.srcStride, p.addrMode, i));
    acc.add(Mem::kL1, src.off + src_at[i] * sq, src.off + (src_at[i] + 1) * sq, false);
  }
  for (uint32_t i = 0; i < n; ++i) {
    acc.add(dst.mem, dst.off + i * dstep, dst.off + i * dstep + 512, true);
    if (es != 2)
      acc.add(dst.mem, dst.off + i * dstep + second, dst.off + i * dstep + second + 512, true);
  }
  const uint8_t* s = host(Mem::kL1, src.off);
  uint8_t* d = host(dst.mem, dst.off);
  current().issue(kMTE1, call, acc.take(), [=] {
    // Byte offset of square element (r, c) in the source, and of transposed element (r, c) in
    // the destination.
    auto src_of = [&](uint64_t r, uint64_t c) -> uint64_t {
      if (es == 4) return (c < 8 ? 0 : 512) + (r * 8 + c % 8) * 4;
      return ((r / 16) * 512) + ((r % 16) * side + c) * es;  // b16: r < 16; b8: two row blocks
    };
    auto dst_of = [&](uint64_t r, uint64_t c) -> uint64_t {
      if (es == 4) return (c < 8 ? 0 : second) + (r * 8 + c % 8) * 4;
      return (r < 16 ? 0 : second) + ((r % 16) * side + c) * es;
    };
    for (uint32_t i = 0; i < n; ++i) {
      const uint8_t* f = s + src_at[i] * sq;
      uint8_t* o = d + i * dstep;
      for (uint64_t r = 0; r < side; ++r)
        for (uint64_t c = 0; c < side; ++c) std::memcpy(o + dst_of(r, c), f + src_of(c, r), es);
    }
  });
}

void l1_to_bias(const Opnd& dst, Dt dt, const Opnd& src, Dt st, const AscendC::DataCopyParams& p) {
  const char* call = "DataCopy(L1 -> BT)";
  need_aic(call);
  need_local(call, "dst", dst, {Mem::kBT}, 64);
  need_local(call, "src", src, {Mem::kL1}, 32);
  const bool ok =
      (dt == Dt::kF32 && (st == Dt::kF16 || st == Dt::kF32)) || (dt == Dt::kS32 && st == Dt::kS32);
  check(ok, call,
        std::string("the A2 copies half/float -> float and int32_t -> int32_t into the bias "
                    "table, not ") +
            dt_name(st) + " -> " + dt_name(dt));
  need_range(call, "blockCount", p.blockCount, 0, 4095);
  if (p.blockCount == 0 || p.blockLen == 0) return;  // a NOP
  // blockLen counts 64-byte units of the destination (uncertain for half sources, see report).
  const uint64_t elems = uint64_t{p.blockLen} * 64 / 4, ses = dt_size(st);
  const uint64_t sstep = elems * ses + uint64_t{p.srcStride} * 32;
  const uint64_t dstep = elems * 4 + uint64_t{p.dstStride} * 64;
  const uint64_t cnt = p.blockCount;
  need_inside(call, "src", src, (cnt - 1) * sstep + elems * ses);
  need_inside(call, "dst", dst, (cnt - 1) * dstep + elems * 4);
  Ranges acc;
  for (uint64_t b = 0; b < cnt; ++b) {
    acc.add(Mem::kL1, src.off + b * sstep, src.off + b * sstep + elems * ses, false);
    acc.add(Mem::kBT, dst.off + b * dstep, dst.off + b * dstep + elems * 4, true);
  }
  const uint8_t* s = host(Mem::kL1, src.off);
  uint8_t* d = host(Mem::kBT, dst.off);
  const bool widen = st == Dt::kF16;
  current().issue(kMTE1, call, acc.take(), [=] {
    for (uint64_t b = 0; b < cnt; ++b)
      for (uint64_t e = 0; e < elems; ++e) {
        uint32_t bits;
        if (widen) {
          uint16_t h;
          std::memcpy(&h, s + b * sstep + e * 2, 2);
          bits = f32_bits(f16_to_f32(h));
        } else {
          std::memcpy(&bits, s + b * sstep + e * 4, 4);
        }
        std::memcpy(d + b * dstep + e * 4, &bits, 4);
      }
  });
}

void fill(const Opnd& dst, Dt t, uint32_t value_bits, uint16_t repeat, uint16_t blocks,
          uint16_t gap) {
  const char* call = "InitConstValue";
  need_aic(call);
  const uint32_t es = dt_size(t);
  check(es == 2 || es == 4, call,
        std::string("the A2 fills int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t or float, "
                    "not ") +
            dt_name(t));
  const bool l1 = dst.mem == Mem::kL1;
  need_local(call, "dst", dst, {Mem::kL1, Mem::kL0A, Mem::kL0B}, l1 ? 32 : 512);
  need_range(call, "repeatTimes", repeat, 0, 32767);
  need_range(call, "blockNum", blocks, 0, 32767);
  need_range(call, "dstGap", gap, 0, 32767);
  if (repeat == 0 || blocks == 0) return;  // a NOP
  const uint64_t unit = l1 ? 32 : 512, len = uint64_t{blocks} * unit,
                 step = len + uint64_t{gap} * unit;
  need_inside(call, "dst", dst, (repeat - 1u) * step + len);
  Ranges acc;
  for (uint64_t r = 0; r < repeat; ++r)
    acc.add(dst.mem, dst.off + r * step, dst.off + r * step + len, true);
  uint8_t* d = host(dst.mem, dst.off);
  current().issue(l1 ? kMTE2 : kMTE1, call, acc.take(), [=] {
    for (uint64_t r = 0; r < repeat; ++r)
      for (uint64_t e = 0; e < len / es; ++e) std::memcpy(d + r * step + e * es, &value_bits, es);
  });
}

}  // namespace cube
}  // namespace ascemu
