// GroupQueryAttention's flash kernel (semantics in contrib_gqa.cpp, layouts in contrib.h).
// A host kernel: each row's key range comes from seqlens_k, a run-time value, and a DSL box is
// affine in grid coordinates only, with no masks from data.
//
// Work item: (batch b, KV head kh, query block). Its rows are the G = N / K query heads of kh
// times the block's tokens, so every K/V row read serves G heads: K/V are never repeated. Rows
// are rotated (do_rotary) and pre-scaled in f32 once; then the item walks its keys in tiles of
// kKeyTile rows with an online softmax per row (running max m, running sum l, f32 accumulator):
//   m' = max(m, max_j s_j);  l = l e^(m - m') + sum_j e^(s_j - m');  acc = acc e^(m - m') + sum_j
//   e^(s_j - m') v_j
// and writes acc / l. f16/bf16 K/V tiles are converted to f32 once per tile.
//
// Shared buffers: when past_key/value are the very memory of present_key/value (a caller's KV
// cache passed as both, P == T rows), past rows are already in place: only the new rows are
// written and rows past each batch's length are left as they are.
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

namespace asc::contrib {
namespace {

constexpr int64_t kKeyTile = 64;    // keys per tile (K and V tiles of 64 x H f32 stay in L1/L2)
constexpr int64_t kBlockRows = 64;  // query rows (heads x tokens) per work item

// 8-lane float vectors (GCC/Clang vector extension): one AVX register in the x86-64-v3 clone,
// two SSE registers in the default one. Only locals: never passed by value (ABI differs by ISA).
typedef float v8f __attribute__((vector_size(32)));
typedef int32_t v8i __attribute__((vector_size(32)));

inline void v8_load(v8f& v, const float* p) {
  std::memcpy(&v, p, sizeof(v));
}
inline void v8_store(float* p, const v8f& v) {
  std::memcpy(p, &v, sizeof(v));
}
inline float v8_sum(const v8f& v) {
  return ((v[0] + v[4]) + (v[1] + v[5])) + ((v[2] + v[6]) + (v[3] + v[7]));
}

// e^x for x <= 0 (scores minus the running max), in place on 8 lanes: n = round(x log2 e),
// r = x - n ln 2 (Cody-Waite), e^r by a degree-7 polynomial (relative error ~1e-7), times 2^n.
inline void v8_exp_nonpos(float* p) {
  v8f x;
  v8_load(x, p);
  const v8f lo = {-87.f, -87.f, -87.f, -87.f, -87.f, -87.f, -87.f, -87.f};
  x = x < lo ? lo : x;
  const float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const v8f n = (x * 1.44269504f + kRound) - kRound;
  const v8f r = x - n * 0.693145752f - n * 1.42860677e-6f;
  v8f e = r * (1.f / 5040) + 1.f / 720;
  e = e * r + 1.f / 120;
  e = e * r + 1.f / 24;
  e = e * r + 1.f / 6;
  e = e * r + 0.5f;
  e = e * r + 1.f;
  e = e * r + 1.f;
  const v8i bits = (__builtin_convertvector(n, v8i) + 127) << 23;
  v8f scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  v8_store(p, e * scale);
}

// Scalar form of the same, for tails.
inline float exp_nonpos(float x) {
  float v[8] = {x, 0, 0, 0, 0, 0, 0, 0};
  v8_exp_nonpos(v);
  return v[0];
}

inline float dot(const float* q, const float* k, int64_t H) {
  v8f acc0 = {}, acc1 = {};  // two chains: half the FMA latency per dot
  int64_t d = 0;
  for (; d + 16 <= H; d += 16) {
    v8f a0, b0, a1, b1;
    v8_load(a0, q + d);
    v8_load(b0, k + d);
    v8_load(a1, q + d + 8);
    v8_load(b1, k + d + 8);
    acc0 += a0 * b0;
    acc1 += a1 * b1;
  }
  for (; d + 8 <= H; d += 8) {
    v8f a, b;
    v8_load(a, q + d);
    v8_load(b, k + d);
    acc0 += a * b;
  }
  float t = v8_sum(acc0 + acc1);
  for (; d < H; ++d) t += q[d] * k[d];
  return t;
}

// q . k for 4 consecutive keys (rows of H floats from k): q is loaded once per 4 keys and the
// 4 accumulator chains are independent.
inline void dot4(const float* q, const float* k, int64_t H, float* out) {
  v8f a0 = {}, a1 = {}, a2 = {}, a3 = {};
  int64_t d = 0;
  for (; d + 8 <= H; d += 8) {
    v8f x, k0, k1, k2, k3;
    v8_load(x, q + d);
    v8_load(k0, k + d);
    v8_load(k1, k + H + d);
    v8_load(k2, k + 2 * H + d);
    v8_load(k3, k + 3 * H + d);
    a0 += x * k0;
    a1 += x * k1;
    a2 += x * k2;
    a3 += x * k3;
  }
  out[0] = v8_sum(a0);
  out[1] = v8_sum(a1);
  out[2] = v8_sum(a2);
  out[3] = v8_sum(a3);
  for (; d < H; ++d)
    for (int u = 0; u < 4; ++u) out[u] += q[d] * k[u * H + d];
}

// One key tile against every row of a work item: scores, then the online-softmax update.
// k and v are the tile's rows (H floats each); row r of q (pre-scaled) attends tile keys
// [a[r], e[r]) (a >= e: none); sc is scratch of kKeyTile floats. Reductions and the exp run on
// 8 lanes; the V accumulation keeps 8 lanes of the row's accumulator in a register per key walk.
ASC_HOST_CLONES_V3
void tile_update(const float* q, int64_t rows, const float* k, const float* v, int64_t H,
                 const int64_t* a, const int64_t* e, float softcap, float* m, float* l, float* acc,
                 float* sc) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t lo = a[r], hi = e[r];
    if (lo >= hi) continue;
    const float* qr = q + r * H;
    int64_t j = lo;
    for (; j + 4 <= hi; j += 4) dot4(qr, k + j * H, H, sc + j);
    for (; j < hi; ++j) sc[j] = dot(qr, k + j * H, H);
    if (softcap > 0.f)
      for (j = lo; j < hi; ++j) sc[j] = softcap * std::tanh(sc[j] / softcap);
    v8f mx8 = {kNegInf, kNegInf, kNegInf, kNegInf, kNegInf, kNegInf, kNegInf, kNegInf};
    j = lo;
    for (; j + 8 <= hi; j += 8) {
      v8f t;
      v8_load(t, sc + j);
      mx8 = t > mx8 ? t : mx8;
    }
    float mx = kNegInf;
    for (; j < hi; ++j) mx = std::max(mx, sc[j]);
    for (int u = 0; u < 8; ++u) mx = std::max(mx, mx8[u]);
    const float m_new = std::max(m[r], mx);
    const float corr = m[r] == kNegInf ? 0.f : std::exp(m[r] - m_new);
    for (j = lo; j < hi; ++j) sc[j] -= m_new;
    j = lo;
    v8f s8 = {};
    for (; j + 8 <= hi; j += 8) {
      v8_exp_nonpos(sc + j);
      v8f t;
      v8_load(t, sc + j);
      s8 += t;
    }
    float sum = v8_sum(s8);
    for (; j < hi; ++j) sum += (sc[j] = exp_nonpos(sc[j]));
    l[r] = l[r] * corr + sum;
    m[r] = m_new;
    float* ar = acc + r * H;
    int64_t d0 = 0;
    for (; d0 + 32 <= H; d0 += 32) {  // 4 independent accumulator chains per key walk
      v8f a0, a1, a2, a3;
      v8_load(a0, ar + d0);
      v8_load(a1, ar + d0 + 8);
      v8_load(a2, ar + d0 + 16);
      v8_load(a3, ar + d0 + 24);
      a0 *= corr;
      a1 *= corr;
      a2 *= corr;
      a3 *= corr;
      for (j = lo; j < hi; ++j) {
        const float* vr = v + j * H + d0;
        v8f v0, v1, v2, v3;
        v8_load(v0, vr);
        v8_load(v1, vr + 8);
        v8_load(v2, vr + 16);
        v8_load(v3, vr + 24);
        a0 += sc[j] * v0;
        a1 += sc[j] * v1;
        a2 += sc[j] * v2;
        a3 += sc[j] * v3;
      }
      v8_store(ar + d0, a0);
      v8_store(ar + d0 + 8, a1);
      v8_store(ar + d0 + 16, a2);
      v8_store(ar + d0 + 24, a3);
    }
    for (; d0 + 8 <= H; d0 += 8) {
      v8f a8;
      v8_load(a8, ar + d0);
      a8 *= corr;
      for (j = lo; j < hi; ++j) {
        v8f vr;
        v8_load(vr, v + j * H + d0);
        a8 += sc[j] * vr;
      }
      v8_store(ar + d0, a8);
    }
    for (int64_t d = d0; d < H; ++d) {
      float t = ar[d] * corr;
      for (j = lo; j < hi; ++j) t += sc[j] * v[j * H + d];
      ar[d] = t;
    }
  }
}

struct Gqa {
  const GqaGeom& g;
  const std::vector<GqaSpan>& spans;
  std::span<const Tensor> in;
  std::span<Tensor> out;
  DType dt;
  bool shared = false;  // past_key/value are present_key/value's own memory (a KV cache buffer)

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
    const int64_t past_end = shared ? j0 : std::min(j1, sp.past);
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
    if (!shared && zero_from < j1) {
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
    // Running max and sum start empty, or with smooth_softmax's sink key (score 0, value 0).
    std::vector<float> m(static_cast<size_t>(rows),
                         g.smooth ? 0.f : -std::numeric_limits<float>::infinity());
    std::vector<float> l(static_cast<size_t>(rows), g.smooth ? 1.f : 0.f), sc(kKeyTile),
        row(static_cast<size_t>(H)), cs;
    std::vector<int64_t> lo(static_cast<size_t>(rows)), hi(lo.size()), ta(lo.size()), te(lo.size());
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
        ta[static_cast<size_t>(r)] = std::max(j0, lo[static_cast<size_t>(r)]) - j0;
        te[static_cast<size_t>(r)] = std::min(j1, hi[static_cast<size_t>(r)]) - j0;
      }
      tile_update(q.data(), rows, kp, vp, H, ta.data(), te.data(), g.softcap, m.data(), l.data(),
                  acc.data(), sc.data());
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
  Gqa k{g, spans, in, out, in[0].dtype()};
  k.shared = in[3].defined() && in[3].data() == out[1].data() && in[4].data() == out[2].data() &&
             g.past == g.present;
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
