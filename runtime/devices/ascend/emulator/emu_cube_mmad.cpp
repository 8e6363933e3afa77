// The cube unit's matrix multiply (Mmad) and L0C read-out (Fixpipe); emu_cube.h has the layouts.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "emu_cube_util.h"

namespace ascemu {
namespace cube {

namespace {

using AscendC::CO2Layout;

void need_range(const char* call, const char* field, uint64_t v, uint64_t lo, uint64_t hi) {
  check(v >= lo && v <= hi, call,
        std::string(field) + " " + num(v) + " outside " + num(lo) + ".." + num(hi));
}

float load_float(const uint8_t* p, Dt t) {
  uint32_t u = 0;
  switch (t) {
    case Dt::kF16:
      std::memcpy(&u, p, 2);
      return f16_to_f32(static_cast<uint16_t>(u));
    case Dt::kBF16:
      std::memcpy(&u, p, 2);
      return bf16_to_f32(static_cast<uint16_t>(u));
    default:
      std::memcpy(&u, p, 4);
      return bits_f32(u);
  }
}

const char* quant_name(QuantMode_t q) {
  static const char* const kNames[] = {"NoQuant",      "F322F16", "F322BF16",
                                       "DEQF16",       "VDEQF16", "QF322B8_PRE",
                                       "VQF322B8_PRE", "REQ8",    "VREQ8"};
  const auto i = static_cast<size_t>(q);
  return i < sizeof kNames / sizeof kNames[0] ? kNames[i] : "(not an A2 mode)";
}

// unitFlag: a Mmad with unitFlag 3 (the last one writing its L0C) hands the result to the
// Fixpipes with unitFlag 2 or 3 that read it (3 the last of them), as the M -> FIX flag would.
// Modelled as a flag of its own (id 63, outside the program's 0..7), so a Fixpipe with unitFlag
// and no such Mmad is a deadlock at the end of the kernel.
Token& unit_flag() {
  return current().flag(kM, kFIX, 63);
}

// A quantisation word (QUANT_PRE): bits 31..13 a float scale of (1, 8, 10) bits, 35..32 a right
// shift N - 1, 36 the mode bit (shift first), 45..37 an offset, 46 a signed int8 result.
struct QuantWord {
  float scale;
  uint32_t shift;
  bool pre_shift;
  int32_t offset;
  bool is_signed;
};
QuantWord decode(uint64_t w) {
  return QuantWord{bits_f32(static_cast<uint32_t>(w) & 0xFFFFE000u),
                   static_cast<uint32_t>((w >> 32) & 0xFu) + 1, ((w >> 36) & 1u) != 0,
                   static_cast<int32_t>((w >> 37) & 0x1FFu), ((w >> 46) & 1u) != 0};
}

float clampf(float x, float lo, float hi) {
  return std::min(std::max(x, lo), hi);
}

// One L0C element (float or int32_t bits) through quantPre and ReLU into the destination type.
void convert(uint32_t bits, Dt st, Dt dt, QuantMode_t q, bool relu, const QuantWord& w,
             uint8_t* out) {
  switch (q) {
    case QuantMode_t::NoQuant: {
      if (relu) {
        const bool neg = st == Dt::kF32 ? bits_f32(bits) < 0 : static_cast<int32_t>(bits) < 0;
        if (neg) bits = 0;
      }
      std::memcpy(out, &bits, 4);
      return;
    }
    case QuantMode_t::F322F16:
    case QuantMode_t::F322BF16: {
      float x = bits_f32(bits);
      if (relu && x < 0) x = 0;
      const uint16_t h = q == QuantMode_t::F322F16 ? f32_to_f16(x) : f32_to_bf16(x);
      std::memcpy(out, &h, 2);
      return;
    }
    default:
      break;
  }
  // The scale modes: negative values take M2 = 0 under ReLU, else the same scale.
  float x;
  if (st == Dt::kS32) {
    int64_t v = static_cast<int32_t>(bits);
    if (w.pre_shift) v = std::min<int64_t>(std::max<int64_t>(v >> w.shift, -32768), 32767);
    x = static_cast<float>(v);
  } else {
    x = bits_f32(bits);
    if (w.pre_shift)
      x = clampf(std::nearbyint(x / static_cast<float>(1u << w.shift)), -32768.f, 32767.f);
  }
  x = x >= 0 ? x * w.scale : (relu ? 0.f : x * w.scale);
  if (dt == Dt::kF16) {  // DEQF16: saturated to half's range, no offset
    const uint16_t h = f32_to_f16(clampf(x, -65504.f, 65504.f));
    std::memcpy(out, &h, 2);
    return;
  }
  const float r = std::nearbyint(clampf(x, -256.f, 255.f)) + static_cast<float>(w.offset);
  const float v = w.is_signed ? clampf(r, -128.f, 127.f) : clampf(r, 0.f, 255.f);
  const auto b = static_cast<uint8_t>(static_cast<int32_t>(v));
  *out = b;
}

}  // namespace

void mmad(const Opnd& c, Dt ct, const Opnd& a, Dt at, const Opnd& b, Dt bt, const Opnd* bias,
          Dt biast, const AscendC::MmadParams& p) {
  const char* call = "Mmad";
  need_aic(call);
  const bool fp =
      ct == Dt::kF32 && at == bt && (at == Dt::kF16 || at == Dt::kBF16 || at == Dt::kF32);
  const bool s8 = ct == Dt::kS32 && at == Dt::kS8 && bt == Dt::kS8;
  check(fp || s8, call,
        std::string("the A2's cube computes half x half, bfloat16_t x bfloat16_t and float x float "
                    "into float, int8_t x int8_t into int32_t; not ") +
            dt_name(at) + " x " + dt_name(bt) + " into " + dt_name(ct));
  need_local(call, "dst", c, {Mem::kL0C}, 1024);
  need_local(call, "fm", a, {Mem::kL0A}, 512);
  need_local(call, "filter", b, {Mem::kL0B}, 512);
  if (bias) {
    need_local(call, "bias", *bias, {Mem::kBT}, 64);
    check(biast == ct, call,
          std::string("bias of ") + dt_name(biast) + " for a " + dt_name(ct) + " result");
  }
  need_range(call, "m", p.m, 0, 4095);
  need_range(call, "n", p.n, 0, 4095);
  need_range(call, "k", p.k, 0, 4095);
  check(p.unitFlag == 0 || p.unitFlag == 2 || p.unitFlag == 3, call,
        "unitFlag " + num(p.unitFlag) + " is not 0, 2 or 3");
  if (p.m == 0 || p.n == 0 || p.k == 0) return;  // a NOP
  const uint32_t es = dt_size(at), c0 = 32 / es;
  const bool gemv = p.m == 1;  // A is read as k contiguous elements
  const uint64_t m1 = ceil_div(p.m, 16), n1 = ceil_div(p.n, 16), k1 = ceil_div(p.k, c0);
  const uint64_t ka1 = at == Dt::kF32 && p.kDirectionAlign ? ceil_div(p.k, 16) * 2 : k1;
  const uint64_t a_bytes = gemv ? uint64_t{p.k} * es : ((m1 - 1) * ka1 + k1) * 512;
  const uint64_t b_bytes = k1 * n1 * 512, c_bytes = n1 * m1 * 1024;
  const std::string mk = " (m " + num(p.m) + ", k " + num(p.k) + ")";
  need_inside(call, ("fm" + mk).c_str(), a, a_bytes);
  need_inside(call, ("filter (k " + num(p.k) + ", n " + num(p.n) + ")").c_str(), b, b_bytes);
  need_inside(call, ("dst (m " + num(p.m) + ", n " + num(p.n) + ")").c_str(), c, c_bytes);
  // C starts from 0, from the bias table (1 x n, broadcast over rows) or from L0C itself.
  const bool zero = p.cmatrixInitVal && !p.isBias;
  const bool from_bt = !zero && (bias != nullptr || p.cmatrixSource);
  const uint64_t bt_off = bias ? bias->off : 0;
  if (from_bt) {
    const Opnd whole_bt{Mem::kBT, bt_off, current().capacity(Mem::kBT) - bt_off,
                        AscendC::TPosition::C2};
    need_inside(call, "bias", bias ? *bias : whole_bt, uint64_t{p.n} * 4);
  }
  // With (m / 16) * (n / 16) >= 10 the hardware orders an Mmad after the previous ones on its
  // own (no PipeBarrier<PIPE_M> needed between Mmads accumulating into one L0C); below that the
  // program must. The emulator models the former as a barrier on the M pipe.
  if ((p.m / 16) * (p.n / 16) >= 10) current().barrier(kM);
  std::vector<Access> acc = {{Mem::kL0A, a.off, a.off + a_bytes, false},
                             {Mem::kL0B, b.off, b.off + b_bytes, false}};
  if (from_bt) acc.push_back({Mem::kBT, bt_off, bt_off + uint64_t{p.n} * 4, false});
  if (!zero && !from_bt) acc.push_back({Mem::kL0C, c.off, c.off + c_bytes, false});
  acc.push_back({Mem::kL0C, c.off, c.off + c_bytes, true});
  const uint8_t* pa = host(Mem::kL0A, a.off);
  const uint8_t* pb = host(Mem::kL0B, b.off);
  const uint8_t* pbias = from_bt ? host(Mem::kBT, bt_off) : nullptr;
  uint8_t* pc = host(Mem::kL0C, c.off);
  const uint32_t k = p.k, n = p.n;
  current().issue(kM, call, std::move(acc), [=] {
    const uint64_t rows = gemv ? 1 : m1 * 16, cols = n1 * 16;
    auto a_at = [&](uint64_t i, uint64_t kk) {
      return gemv ? kk * es : ((i / 16) * ka1 + kk / c0) * 512 + ((i % 16) * c0 + kk % c0) * es;
    };
    auto b_at = [&](uint64_t kk, uint64_t j) {
      return ((kk / c0) * n1 + j / 16) * 512 + ((j % 16) * c0 + kk % c0) * es;
    };
    auto c_at = [&](uint64_t i, uint64_t j) {
      return ((j / 16) * m1 + i / 16) * 1024 + ((i % 16) * 16 + j % 16) * 4;
    };
    if (s8) {
      std::vector<int32_t> av(rows * k), bv(k * cols);
      for (uint64_t i = 0; i < rows; ++i)
        for (uint64_t kk = 0; kk < k; ++kk) av[i * k + kk] = static_cast<int8_t>(pa[a_at(i, kk)]);
      for (uint64_t kk = 0; kk < k; ++kk)
        for (uint64_t j = 0; j < cols; ++j) bv[j * k + kk] = static_cast<int8_t>(pb[b_at(kk, j)]);
      for (uint64_t i = 0; i < rows; ++i)
        for (uint64_t j = 0; j < cols; ++j) {
          int32_t init = 0;
          if (from_bt && j < n) std::memcpy(&init, pbias + j * 4, 4);
          if (!zero && !from_bt) std::memcpy(&init, pc + c_at(i, j), 4);
          int64_t s = init;
          for (uint64_t kk = 0; kk < k; ++kk) s += av[i * k + kk] * bv[j * k + kk];
          const auto out = static_cast<uint32_t>(s);  // wraps like the 32-bit accumulator
          std::memcpy(pc + c_at(i, j), &out, 4);
        }
      return;
    }
    std::vector<float> av(rows * k), bv(k * cols);
    for (uint64_t i = 0; i < rows; ++i)
      for (uint64_t kk = 0; kk < k; ++kk) av[i * k + kk] = load_float(pa + a_at(i, kk), at);
    for (uint64_t kk = 0; kk < k; ++kk)
      for (uint64_t j = 0; j < cols; ++j) bv[j * k + kk] = load_float(pb + b_at(kk, j), at);
    for (uint64_t i = 0; i < rows; ++i)
      for (uint64_t j = 0; j < cols; ++j) {
        float s = 0;
        if (from_bt && j < n) s = load_float(pbias + j * 4, Dt::kF32);
        if (!zero && !from_bt) s = load_float(pc + c_at(i, j), Dt::kF32);
        for (uint64_t kk = 0; kk < k; ++kk) s += av[i * k + kk] * bv[j * k + kk];
        std::memcpy(pc + c_at(i, j), &s, 4);
      }
  });
  if (p.unitFlag == 3) current().issue_set(kM, &unit_flag(), "Mmad(unitFlag 3)");
}

void fixpipe(const Opnd* dst_l1, const Gm* dst_gm, Dt dt, const Opnd& src, Dt st,
             const Opnd* quant_l1, const AscendC::FixpipeParamsV220& p, CO2Layout format) {
  const char* call = "Fixpipe";
  need_aic(call);
  need_local(call, "src", src, {Mem::kL0C}, 64);
  check(st == Dt::kF32 || st == Dt::kS32, call,
        std::string("src of ") + dt_name(st) + ": L0C holds float or int32_t");
  check(format != CO2Layout::COLUMN_MAJOR, call, "CFG_COLUMN_MAJOR (NZ2DN) is not on the A2");
  const bool nd = format == CO2Layout::ROW_MAJOR;
  bool ok;
  if (st == Dt::kF32)
    ok = dt == Dt::kS8 || dt == Dt::kU8 || dt == Dt::kF16 || dt == Dt::kBF16 ||
         (dt == Dt::kF32 && dst_gm);
  else
    ok = dt == Dt::kS8 || dt == Dt::kU8 || dt == Dt::kF16 || (dt == Dt::kS32 && dst_gm);
  check(
      ok, call,
      std::string("the A2's Fixpipe to ") + (dst_gm ? "GM" : "L1") + " does not write " +
          dt_name(st) + " -> " + dt_name(dt) +
          (dst_gm ? " (float -> int8_t/uint8_t/half/bfloat16_t/float, int32_t -> "
                    "int8_t/uint8_t/half/int32_t)"
                  : " (float -> int8_t/uint8_t/half/bfloat16_t, int32_t -> int8_t/uint8_t/half)"));
  // The mode that makes this conversion.
  const QuantMode_t q = p.quantPre;
  const bool b8 = dt == Dt::kS8 || dt == Dt::kU8;
  QuantMode_t want, want_v = QuantMode_t::NoQuant;
  if (dt == st)
    want = QuantMode_t::NoQuant;
  else if (dt == Dt::kBF16)
    want = QuantMode_t::F322BF16;
  else if (dt == Dt::kF16 && st == Dt::kF32)
    want = QuantMode_t::F322F16;
  else if (dt == Dt::kF16)
    want = QuantMode_t::DEQF16, want_v = QuantMode_t::VDEQF16;
  else if (st == Dt::kF32)
    want = QuantMode_t::QF322B8_PRE, want_v = QuantMode_t::VQF322B8_PRE;
  else
    want = QuantMode_t::REQ8, want_v = QuantMode_t::VREQ8;
  const bool vector = want_v != QuantMode_t::NoQuant && q == want_v;
  check(q == want || vector, call,
        std::string("quantPre ") + quant_name(q) + " does not turn " + dt_name(st) + " into " +
            dt_name(dt) + " (that takes QuantMode_t::" + quant_name(want) +
            (want_v != QuantMode_t::NoQuant ? std::string(" or ") + quant_name(want_v) : "") + ")");
  check(vector == (quant_l1 != nullptr), call,
        vector ? std::string("quantPre ") + quant_name(q) +
                     " reads one scale per column: pass the cbufWorkspace tensor"
               : "a cbufWorkspace tensor goes with a per-column quantPre (VDEQF16, VQF322B8_PRE, "
                 "VREQ8)");
  if (quant_l1) need_local(call, "cbufWorkspace", *quant_l1, {Mem::kL1}, 32);
  check(p.unitFlag == 0 || p.unitFlag == 2 || p.unitFlag == 3, call,
        "unitFlag " + num(p.unitFlag) + " is not 0, 2 or 3");
  need_range(call, "nSize", p.nSize, 0, 4095);
  need_range(call, "mSize", p.mSize, 0, nd ? 8192 : 65535);
  if (p.isChannelSplit)
    check(!nd && st == Dt::kF32 && dt == Dt::kF32 && dst_gm && p.unitFlag == 0, call,
          "isChannelSplit needs float -> float, NZ output (CFG_NZ) to GM and no unitFlag");
  if (dst_l1) {
    need_local(call, "dst", *dst_l1, {Mem::kL1}, 32);
    check(!nd, call, "L0C -> L1 writes NZ only (Fixpipe<T, U, CFG_NZ>), not ND");
  }
  if (!nd) {
    const uint32_t unit = p.isChannelSplit ? 8 : 16;
    check(p.nSize % unit == 0, call,
          "nSize " + num(p.nSize) + " is not a multiple of " + num(unit) + " for NZ output");
  }
  if (nd) need_range(call, "srcNdStride", p.srcNdStride, 0, 512);
  const uint64_t nd_num = nd ? p.ndNum : 1;
  if (p.nSize == 0 || p.mSize == 0 || nd_num == 0) return;  // a NOP
  check(p.dstStride != 0, call, "dstStride 0");
  const uint64_t des = dt_size(dt), ms = p.mSize, ns = p.nSize, nb = ceil_div(ns, 16);
  const uint64_t col = uint64_t{p.srcStride} * 16 * 4;  // bytes between source column blocks
  const uint64_t mat = uint64_t{p.srcNdStride} * 1024;  // bytes between source matrices
  need_inside(call, "src", src, (nd_num - 1) * mat + (nb - 1) * col + ms * 64);
  if (quant_l1) need_inside(call, "cbufWorkspace", *quant_l1, ns * 8);
  // Destination element (matrix i, row r, column j): byte offset from the destination's start.
  const uint64_t ds = p.dstStride, dnd = p.dstNdStride;
  const bool split = p.isChannelSplit;
  // NZ blocks: 16 columns (float 8 with channel split; 8-bit types merge two into 32 columns, a
  // last odd 16 staying alone), dstStride 32-byte units apart, each row of a block contiguous.
  auto block_w = [=](uint64_t j) -> uint64_t {
    if (split) return 8;
    if (b8 && (j / 32) * 32 + 32 <= ns) return 32;
    return 16;
  };
  auto dst_at = [=](uint64_t i, uint64_t r, uint64_t j) -> uint64_t {
    if (nd) return (i * dnd + r * ds + j) * des;
    const uint64_t w = block_w(j), step = b8 ? 32 : w;  // blocks of 8-bit types go by 32 columns
    return (j / step) * ds * 32 + (r * w + j % w) * des;
  };
  uint64_t dst_end = 0;
  if (nd) {
    dst_end = dst_at(nd_num - 1, ms - 1, ns - 1) + des;
  } else {
    for (uint64_t j = 0; j < ns; j += block_w(j))
      dst_end = std::max(dst_end, dst_at(0, ms - 1, j + block_w(j) - 1) + des);
  }
  Mem dmem = Mem::kGM;
  uint64_t dbase;
  if (dst_gm) {
    need_gm(call, *dst_gm, dst_end);
    dbase = dst_gm->addr;
  } else {
    need_inside(call, "dst", *dst_l1, dst_end);
    dmem = Mem::kL1;
    dbase = dst_l1->off;
  }
  Ranges acc;
  for (uint64_t i = 0; i < nd_num; ++i)
    for (uint64_t b = 0; b < nb; ++b)
      acc.add(Mem::kL0C, src.off + i * mat + b * col, src.off + i * mat + b * col + ms * 64, false);
  if (quant_l1) acc.add(Mem::kL1, quant_l1->off, quant_l1->off + ns * 8, false);
  if (nd) {
    for (uint64_t i = 0; i < nd_num; ++i)
      for (uint64_t r = 0; r < ms; ++r)
        acc.add(dmem, dbase + dst_at(i, r, 0), dbase + dst_at(i, r, ns - 1) + des, true);
  } else {
    for (uint64_t j = 0; j < ns; j += block_w(j))
      acc.add(dmem, dbase + dst_at(0, 0, j), dbase + dst_at(0, ms - 1, j + block_w(j) - 1) + des,
              true);
  }
  const uint8_t* ps = host(Mem::kL0C, src.off);
  const uint8_t* pq = quant_l1 ? host(Mem::kL1, quant_l1->off) : nullptr;
  uint8_t* pd = host(dmem, dbase);
  const QuantWord scalar = decode(p.deqScalar);
  const bool relu = p.reluEn;
  if (p.unitFlag != 0)
    current().issue_wait(kFIX, &unit_flag(), "Fixpipe(unitFlag) waiting for a Mmad(unitFlag 3)");
  current().issue(kFIX, call, acc.take(), [=] {
    for (uint64_t i = 0; i < nd_num; ++i)
      for (uint64_t r = 0; r < ms; ++r)
        for (uint64_t j = 0; j < ns; ++j) {
          uint32_t bits;
          std::memcpy(&bits, ps + i * mat + (j / 16) * col + (r * 16 + j % 16) * 4, 4);
          QuantWord w = scalar;
          if (pq) {
            uint64_t word;
            std::memcpy(&word, pq + j * 8, 8);
            w = decode(word);
          }
          convert(bits, st, dt, q, relu, w, pd + dst_at(i, r, j));
        }
  });
  if (p.unitFlag == 2) current().issue_set(kFIX, &unit_flag(), "Fixpipe(unitFlag 2)");
}

}  // namespace cube
}  // namespace ascemu
