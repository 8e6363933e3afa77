// GroupQueryAttention's flash kernel (semantics in contrib_gqa.cpp, layouts in contrib.h).
//
// Work item: (batch b, KV head kh, query block). Its rows are the G = N / K query heads of kh
// times the block's tokens, so every K/V row read serves G heads: K/V are never repeated. Rows
// are rotated (do_rotary) and pre-scaled in f32 once; then the item walks its keys in tiles of
// kKeyTile rows with an online softmax per row (running max m, running sum l, f32 accumulator):
//   m' = max(m, max_j s_j);  l = l e^(m - m') + sum_j e^(s_j - m');  acc = acc e^(m - m') + sum_j
//   e^(s_j - m') v_j
// and writes acc / l. f16/bf16 K/V tiles are converted to f32 once per tile.
//
// present_key/value: when a (b, kh) has one query block (decode, short prompts) the item builds
// each present tile (past rows copied, new rows rotated, rows past the batch's length zeroed)
// right before using it, so the cache streams through memory once per step; with several query
// blocks a first parallel pass builds present for every (b, kh).
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ops/contrib.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ASC_CONTRIB_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define ASC_CONTRIB_CLONES
#endif

namespace asc::contrib {
namespace {

constexpr int64_t kKeyTile = 64;    // keys per tile (K and V tiles of 64 x H f32 stay in L1/L2)
constexpr int64_t kBlockRows = 64;  // query rows (heads x tokens) per work item

// e^x for x <= 0 (arguments are score - running max): Cody-Waite reduction and a degree-7
// polynomial, relative error ~1e-7, written so the loop vectorises.
inline float exp_nonpos(float x) {
  x = std::max(x, -87.0f);
  const float n = std::floor(x * 1.44269504f + 0.5f);
  const float r = x - n * 0.693145752f - n * 1.42860677e-6f;
  float p = 1.f / 5040;
  p = p * r + 1.f / 720;
  p = p * r + 1.f / 120;
  p = p * r + 1.f / 24;
  p = p * r + 1.f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.f;
  p = p * r + 1.f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, 4);
  return p * scale;
}

inline float dot(const float* a, const float* b, int64_t n) {
  float s[16] = {};
  int64_t k = 0;
  for (; k + 16 <= n; k += 16)
    for (int u = 0; u < 16; ++u) s[u] += a[k + u] * b[k + u];
  float t = 0;
  for (; k < n; ++k) t += a[k] * b[k];
  for (float v : s) t += v;
  return t;
}

// One query row against keys [a, e) of a tile whose row 0 is key j0: the online-softmax update.
// k and v point at the tile's rows (H floats each); sc is scratch for kKeyTile scores.
ASC_CONTRIB_CLONES
void row_update(const float* q, const float* k, const float* v, int64_t a, int64_t e, int64_t H,
                float softcap, float& m, float& l, float* acc, float* sc) {
  const int64_t n = e - a;
  k += a * H;
  v += a * H;
  float mx = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < n; ++j) {
    float s = dot(q, k + j * H, H);
    if (softcap > 0.f) s = softcap * std::tanh(s / softcap);
    sc[j] = s;
    mx = std::max(mx, s);
  }
  const float m_new = std::max(m, mx);
  const float corr = m == -std::numeric_limits<float>::infinity() ? 0.f : std::exp(m - m_new);
  float sum = 0;
  for (int64_t j = 0; j < n; ++j) {
    sc[j] = exp_nonpos(sc[j] - m_new);
    sum += sc[j];
  }
  l = l * corr + sum;
  m = m_new;
  if (corr != 1.f)
    for (int64_t d = 0; d < H; ++d) acc[d] *= corr;
  for (int64_t j = 0; j < n; ++j) {
    const float p = sc[j];
    const float* vr = v + j * H;
    for (int64_t d = 0; d < H; ++d) acc[d] += p * vr[d];
  }
}

struct Gqa {
  const GqaGeom& g;
  const std::vector<GqaSpan>& spans;
  std::span<const Tensor> in;
  std::span<Tensor> out;
  DType dt;

  const Tensor& key() const { return g.packed ? in[0] : in[1]; }
  const Tensor& value() const { return g.packed ? in[0] : in[2]; }
  int64_t present_at(int64_t b, int64_t kh, int64_t j) const {
    return ((b * g.kv_heads + kh) * g.present + j) * g.head;
  }

  // Loads `n` elements at `at` of t into f32 (x), rotating at `pos` when do_rotary.
  void load_head(const Tensor& t, int64_t at, int64_t pos, bool rotate_it, float* x,
                 std::vector<float>& cs) const {
    load_f32(dt, t.data(), at, g.head, x);
    if (!rotate_it || !g.rotary) return;
    const int64_t half = g.rot / 2;
    cs.resize(static_cast<size_t>(2 * half));
    load_f32(in[7].dtype(), in[7].data(), pos * half, half, cs.data());
    load_f32(in[8].dtype(), in[8].data(), pos * half, half, cs.data() + half);
    rotate(x, cs.data(), cs.data() + half, g.rot, g.head, g.interleaved, x);
  }

  // present rows [j0, j1) of (b, kh): past rows, new rows (keys rotated), zeros.
  void build(int64_t b, int64_t kh, int64_t j0, int64_t j1, std::vector<float>& row,
             std::vector<float>& cs) const {
    const GqaSpan& sp = spans[static_cast<size_t>(b)];
    const size_t es = dtype_size(dt);
    const int64_t H = g.head;
    auto* pk = static_cast<char*>(out[1].data());
    auto* pv = static_cast<char*>(out[2].data());
    const int64_t past_end = std::min(j1, sp.past);
    if (j0 < past_end) {  // one contiguous copy per cache
      const int64_t src = ((b * g.kv_heads + kh) * g.past + j0) * H;
      const auto bytes = static_cast<size_t>((past_end - j0) * H) * es;
      std::memcpy(pk + present_at(b, kh, j0) * es,
                  static_cast<const char*>(in[3].data()) + src * es, bytes);
      std::memcpy(pv + present_at(b, kh, j0) * es,
                  static_cast<const char*>(in[4].data()) + src * es, bytes);
    }
    const int64_t new_end = std::min(j1, sp.past + g.seq);
    for (int64_t j = std::max(j0, sp.past); j < new_end; ++j) {
      const int64_t s = j - sp.past;
      load_head(key(), g.k_at(b, s, kh), j, true, row.data(), cs);
      store_f32(dt, out[1].data(), present_at(b, kh, j), H, row.data());
      std::memcpy(pv + present_at(b, kh, j) * es,
                  static_cast<const char*>(value().data()) + g.v_at(b, s, kh) * es,
                  static_cast<size_t>(H) * es);
    }
    const int64_t zero_from = std::max(j0, sp.past + g.seq);
    if (zero_from < j1) {
      const auto bytes = static_cast<size_t>((j1 - zero_from) * H) * es;
      std::memset(pk + present_at(b, kh, zero_from) * es, 0, bytes);
      std::memset(pv + present_at(b, kh, zero_from) * es, 0, bytes);
    }
  }

  // Work item: query tokens [s0, s1) of every query head of KV head kh in batch b.
  void attend(int64_t b, int64_t kh, int64_t s0, int64_t s1, bool fused) const {
    const GqaSpan& sp = spans[static_cast<size_t>(b)];
    const int64_t H = g.head, G = g.group(), ns = s1 - s0, rows = G * ns;
    std::vector<float> q(static_cast<size_t>(rows * H)), acc(q.size(), 0.f);
    std::vector<float> m(static_cast<size_t>(rows), -std::numeric_limits<float>::infinity());
    std::vector<float> l(static_cast<size_t>(rows), 0.f), sc(kKeyTile), row(static_cast<size_t>(H)),
        cs;
    std::vector<int64_t> lo(static_cast<size_t>(rows)), hi(lo.size());
    int64_t jlo = g.present, jhi = 0;
    for (int64_t r = 0; r < rows; ++r) {  // row r: head kh * G + r / ns, token s0 + r % ns
      const int64_t h = kh * G + r / ns, s = s0 + r % ns;
      float* qr = q.data() + r * H;
      load_head(in[0], g.q_at(b, s, h), sp.past + s, true, qr, cs);
      for (int64_t d = 0; d < H; ++d) qr[d] *= g.scale;
      gqa_keys(g, sp, s, lo[static_cast<size_t>(r)], hi[static_cast<size_t>(r)]);
      jlo = std::min(jlo, lo[static_cast<size_t>(r)]);
      jhi = std::max(jhi, hi[static_cast<size_t>(r)]);
    }
    if (fused) build(b, kh, 0, jlo, row, cs);
    const bool f32 = dt == DType::kF32;
    std::vector<float> kt(f32 ? 0 : static_cast<size_t>(kKeyTile * H)), vt(kt.size());
    for (int64_t j0 = jlo; j0 < jhi; j0 += kKeyTile) {
      const int64_t j1 = std::min(j0 + kKeyTile, jhi);
      if (fused) build(b, kh, j0, j1, row, cs);
      const float *kp = nullptr, *vp = nullptr;
      if (f32) {
        kp = out[1].data_as<float>() + present_at(b, kh, j0);
        vp = out[2].data_as<float>() + present_at(b, kh, j0);
      } else {
        load_f32(dt, out[1].data(), present_at(b, kh, j0), (j1 - j0) * H, kt.data());
        load_f32(dt, out[2].data(), present_at(b, kh, j0), (j1 - j0) * H, vt.data());
        kp = kt.data();
        vp = vt.data();
      }
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t a = std::max(j0, lo[static_cast<size_t>(r)]);
        const int64_t e = std::min(j1, hi[static_cast<size_t>(r)]);
        if (a >= e) continue;
        row_update(q.data() + r * H, kp, vp, a - j0, e - j0, H, g.softcap,
                   m[static_cast<size_t>(r)], l[static_cast<size_t>(r)], acc.data() + r * H,
                   sc.data());
      }
    }
    if (fused) build(b, kh, std::max(jlo, jhi), g.present, row, cs);
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t h = kh * G + r / ns, s = s0 + r % ns;
      const float li = l[static_cast<size_t>(r)];
      float* ar = acc.data() + r * H;
      for (int64_t d = 0; d < H; ++d) ar[d] = li > 0.f ? ar[d] / li : 0.f;
      store_f32(dt, out[0].data(), ((b * g.seq + s) * g.heads + h) * H, H, ar);
    }
  }
};

}  // namespace

void gqa_kernel(const LaunchContext& ctx, std::span<const Tensor> in, std::span<Tensor> out) {
  std::vector<const Shape*> sh(9, nullptr);
  for (size_t i = 0; i < in.size() && i < 9; ++i)
    if (in[i].defined()) sh[i] = &in[i].shape();
  if (in[6].numel() != 1)
    throw ShapeError(cat(ctx.str(), ": total_sequence_length must have one element"));
  const GqaGeom g = gqa_geom(ctx.attr(), sh, static_cast<int64_t>(in[6].at(0)));
  const auto spans = gqa_spans(g, in[5]);
  const Gqa k{g, spans, in, out, in[0].dtype()};
  const int64_t per_block = std::max<int64_t>(1, kBlockRows / g.group());
  const int64_t blocks = (g.seq + per_block - 1) / per_block;
  const int64_t pairs = g.batch * g.kv_heads;
  const bool fused = blocks <= 1;
  if (!fused)
    ctx.parallel(pairs, [&](int64_t begin, int64_t end) {
      std::vector<float> row(static_cast<size_t>(g.head)), cs;
      for (int64_t i = begin; i < end; ++i)
        k.build(i / g.kv_heads, i % g.kv_heads, 0, g.present, row, cs);
    });
  ctx.parallel(pairs * blocks, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t pair = i / blocks, blk = i % blocks;
      const int64_t s0 = blk * per_block, s1 = std::min(g.seq, s0 + per_block);
      k.attend(pair / g.kv_heads, pair % g.kv_heads, s0, s1, fused);
    }
  });
}

}  // namespace asc::contrib
