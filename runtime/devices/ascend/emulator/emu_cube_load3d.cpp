// The cube unit's Load3D v2: image-to-column from an NC1HWC0 map in L1 into L0A/L0B (emu_cube.h).
#include <algorithm>
#include <cstring>

#include "emu_cube_util.h"

namespace ascemu {
namespace cube {

void load3d(const Opnd& dst, const Opnd& src, Dt t, const Load3d& p) {
  const char* call = "LoadData(LoadData3DParamsV2)";
  need_aic(call);
  const uint32_t es = dt_size(t);
  check(t != Dt::kOther && t != Dt::kS16 && t != Dt::kU16, call,
        std::string("the A2's Load3D takes int8_t, uint8_t, half, bfloat16_t, int32_t, uint32_t or "
                    "float, not ") +
            dt_name(t));
  need_local(call, "dst", dst, {Mem::kL0A, Mem::kL0B}, 512);
  need_local(call, "src", src, {Mem::kL1}, 32);
  const bool l0b = dst.mem == Mem::kL0B;
  check(!p.small_k, call, "enSmallK is no longer supported");
  check(!p.fmatrix_ctrl, call, "fMatrixCtrl takes only false");
  check(!(l0b && es == 1), call, "L1 -> L0B takes no 8-bit types");
  const bool transpose = l0b || p.transpose;  // L0B always transposes
  check(!(transpose && es == 1), call, "enTranspose takes 16- and 32-bit types");
  if (p.l1h == 0 || p.l1w == 0 || p.channels == 0 || p.k_ext == 0 || p.m_ext == 0 ||
      p.filter_w == 0 || p.filter_h == 0)
    return;  // a NOP
  const uint32_t c0 = 32 / es;
  check(p.channels % c0 == 0, call,
        "channelSize " + num(p.channels) + " is not a multiple of C0 = " + num(c0) +
            " (the small-channel layouts are not emulated)");
  check(p.k_start % c0 == 0, call,
        "kStartPt " + num(p.k_start) + " is not a multiple of C0 = " + num(c0));
  check(p.stride_w > 0 && p.stride_h > 0 && p.dil_w > 0 && p.dil_h > 0, call,
        "strides and dilations of 0 are not emulated");
  const uint32_t c1n = p.channels / c0, hk = p.filter_h, wk = p.filter_w;
  const int64_t hext = (int64_t{hk} - 1) * p.dil_h + 1, wext = (int64_t{wk} - 1) * p.dil_w + 1;
  const int64_t hpad = int64_t{p.l1h} + p.pad[2] + p.pad[3],
                wpad = int64_t{p.l1w} + p.pad[0] + p.pad[1];
  check(hpad >= hext && wpad >= wext, call,
        "the filter (" + num(hk) + " x " + num(wk) + ", dilated) is larger than the padded map");
  const uint64_t wout = static_cast<uint64_t>((wpad - wext) / p.stride_w + 1);
  const uint64_t k_total = uint64_t{c1n} * hk * wk * c0;
  check(uint64_t{p.k_start} + p.k_ext <= k_total, call,
        "columns [" + num(p.k_start) + ", " + num(p.k_start + p.k_ext) +
            ") past the im2col matrix's " + num(k_total));
  // Fractal counts: untransposed, ceil(m / 16) row blocks of ceil(k / C0) column blocks;
  // transposed (and L0B), ceil(k / 16) column blocks and rows rounded up to 16 in blocks of C0.
  const uint64_t m1 = ceil_div(p.m_ext, 16), k1 = ceil_div(p.k_ext, c0);
  const uint64_t kb = ceil_div(p.k_ext, 16), mb = m1 * 16 / c0;
  const uint64_t dst_bytes = (transpose ? kb * mb : m1 * k1) * 512;
  need_inside(call, "dst", dst, dst_bytes);
  const uint64_t plane = uint64_t{p.l1h} * p.l1w * c0 * es;  // one C1 slice of the map
  const uint64_t c1_lo = p.k_start / (uint64_t{hk} * wk * c0),
                 c1_hi = (p.k_start + p.k_ext - 1) / (uint64_t{hk} * wk * c0);
  need_inside(call, "src", src, (c1_hi + 1) * plane);
  std::vector<Access> acc = {
      {Mem::kL1, src.off + c1_lo * plane, src.off + (c1_hi + 1) * plane, false},
      {dst.mem, dst.off, dst.off + dst_bytes, true}};
  const uint8_t* s = host(Mem::kL1, src.off);
  uint8_t* d = host(dst.mem, dst.off);
  const Load3d q = p;
  current().issue(kMTE1, call, std::move(acc), [=] {
    for (uint64_t mi = 0; mi < q.m_ext; ++mi) {
      const uint64_t pos = q.m_start + mi, oh = pos / wout, ow = pos % wout;
      for (uint64_t ki = 0; ki < q.k_ext; ++ki) {
        const uint64_t col = q.k_start + ki, c0i = col % c0, rest = col / c0;
        const uint64_t kw = rest % wk, kh = (rest / wk) % hk, c1 = rest / (uint64_t{wk} * hk);
        const int64_t ih = static_cast<int64_t>(oh * q.stride_h + kh * q.dil_h) - q.pad[2];
        const int64_t iw = static_cast<int64_t>(ow * q.stride_w + kw * q.dil_w) - q.pad[0];
        // The destination, in 512-byte fractals of 16 x C0: L0A's Zz of M = rows, K = columns;
        // transposed L0A the Zz of M = columns, K = rows (fractals by column block of 16, then row
        // block of C0); L0B the Zn of K = rows, N = columns (fractals by row block of C0, then
        // column block of 16). The last two hold 16 columns of C0 rows each.
        const uint64_t inner = ((ki % 16) * c0 + mi % c0) * es;
        const uint64_t at =
            l0b         ? ((mi / c0) * kb + ki / 16) * 512 + inner
            : transpose ? ((ki / 16) * mb + mi / c0) * 512 + inner
                        : ((mi / 16) * k1 + ki / c0) * 512 + ((mi % 16) * c0 + ki % c0) * es;
        if (ih < 0 || iw < 0 || ih >= q.l1h || iw >= q.l1w) {
          std::memcpy(d + at, &q.pad_bits, es);
          continue;
        }
        const uint64_t from =
            c1 * plane +
            ((static_cast<uint64_t>(ih) * q.l1w + static_cast<uint64_t>(iw)) * c0 + c0i) * es;
        std::memcpy(d + at, s + from, es);
      }
    }
  });
}

}  // namespace cube
}  // namespace ascemu
