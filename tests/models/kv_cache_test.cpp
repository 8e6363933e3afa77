// The in-place KV cache on the tiny Qwen model: past and present as strided views of one buffer
// per layer (the Generator's layout). With attention fusion a decoding step writes only its new
// rows — the past rows' pages are made read-only during the step, so any write to them would
// fault — and the presents returned are the cache itself; without fusion the views are copied in
// and out. Both give the logits and cache contents of a dense, unfused run.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <numeric>

#include "runtime/generator.h"
#include "tests/models/qwen_run.h"

namespace asc::test {
namespace {

// Page-aligned memory (mmap) for cache buffers whose pages can be protected.
class Pages {
 public:
  explicit Pages(size_t bytes) : bytes_(bytes) {
    p_ = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p_ == MAP_FAILED) throw std::runtime_error("mmap failed");
  }
  ~Pages() { ::munmap(p_, bytes_); }
  Pages(const Pages&) = delete;
  Pages& operator=(const Pages&) = delete;
  std::byte* data() const { return static_cast<std::byte*>(p_); }

 private:
  void* p_;
  size_t bytes_;
};

class KvCache : public ::testing::Test {
 protected:
  void SetUp() override {
    o_ = tiny_options(models::ElemType::kF32);
    const auto& c = o_.config;
    page_ = static_cast<int64_t>(::sysconf(_SC_PAGESIZE));
    // Past rows fill whole pages of every head; max_len leaves a second page per head.
    past_ = page_ / (c.head_dim * 4);
    max_len_ = 2 * past_;
    head_bytes_ = max_len_ * c.head_dim * 4;
    for (int64_t i = 0; i < 2 * c.layers; ++i)
      caches_.push_back(std::make_unique<Pages>(static_cast<size_t>(c.kv_heads * head_bytes_)));
  }

  // Rows [0, rows) of cache i as a [1, kv, rows, d] view.
  Tensor view(size_t i, int64_t rows) const {
    const auto& c = o_.config;
    return Tensor::strided(
        DType::kF32, {1, c.kv_heads, rows, c.head_dim},
        {c.kv_heads * max_len_ * c.head_dim, max_len_ * c.head_dim, c.head_dim, 1},
        caches_[i]->data());
  }

  // One step of `ids` after `past` cached rows, past and presents bound to the cache views.
  std::vector<NamedTensor> step(const Model& m, const std::vector<int64_t>& ids, int64_t past) {
    const int64_t s = static_cast<int64_t>(ids.size());
    std::vector<int64_t> pos(ids.size());
    std::iota(pos.begin(), pos.end(), past);
    std::vector<NamedTensor> in = {{"input_ids", i64_tensor({ids})},
                                   {"attention_mask", i64_tensor({std::vector<int64_t>(
                                                          static_cast<size_t>(past + s), 1)})},
                                   {"position_ids", i64_tensor({pos})}},
                             out;
    for (int64_t l = 0; l < o_.config.layers; ++l)
      for (int kv = 0; kv < 2; ++kv) {
        const size_t i = static_cast<size_t>(2 * l + kv);
        const std::string n = models::str_cat(l, kv == 0 ? ".key" : ".value");
        in.push_back({"past_key_values." + n, view(i, past)});
        out.push_back({"present." + n, view(i, past + s)});
      }
    return m.run(in, out);
  }

  // Read-only (or writable again) pages: every head's past rows of every cache.
  void protect_past(bool read_only) {
    for (const auto& p : caches_)
      for (int64_t h = 0; h < o_.config.kv_heads; ++h)
        ASSERT_EQ(::mprotect(p->data() + h * head_bytes_, static_cast<size_t>(page_),
                             read_only ? PROT_READ : PROT_READ | PROT_WRITE),
                  0);
  }

  // The logits and presents of a dense, unfused run of the prompt followed by the token.
  void expect_like_dense(const std::vector<NamedTensor>& got, const std::vector<int64_t>& prompt,
                         int64_t token) {
    const auto plain = load_plain();
    const QwenOut first = run_step(*plain, o_, {{prompt}, {iota(0, past_)}, {ones(past_)}, {}});
    const QwenOut next =
        run_step(*plain, o_, {{{token}}, {{past_}}, {ones(past_ + 1)}, first.present});
    const auto want = logits_row(next.logits, 0, 0), row = logits_row(got[0].tensor, 0, 0);
    EXPECT_LE(max_abs_diff(want, row), 1e-4 * max_abs(want));
    for (size_t i = 0; i < next.present.size(); ++i) {
      const Tensor& p = got[i + 1].tensor;
      ASSERT_EQ(p.shape(), next.present[i].shape());
      double diff = 0, mag = 0;
      for (int64_t e = 0; e < p.numel(); ++e) {
        diff = std::max(diff, std::abs(p.at(e) - next.present[i].at(e)));
        mag = std::max(mag, std::abs(next.present[i].at(e)));
      }
      EXPECT_LE(diff, 1e-4 * mag) << "present " << i;
    }
  }

  std::unique_ptr<Model> load_plain() const {
    return std::make_unique<Model>(import_onnx_file(tiny_model_path()),
                                   ModelOptions{2, "cpu", false});
  }
  static std::vector<int64_t> iota(int64_t from, int64_t n) {
    std::vector<int64_t> v(static_cast<size_t>(n));
    std::iota(v.begin(), v.end(), from);
    return v;
  }
  static std::vector<int64_t> ones(int64_t n) {
    return std::vector<int64_t>(static_cast<size_t>(n), 1);
  }

  models::QwenOptions o_;
  int64_t page_ = 0, past_ = 0, max_len_ = 0, head_bytes_ = 0;
  std::vector<std::unique_ptr<Pages>> caches_;
};

std::vector<int64_t> prompt_of(int64_t n) {
  std::vector<int64_t> p(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) p[static_cast<size_t>(i)] = (i * 37 + 11) % 256;
  return p;
}

TEST_F(KvCache, FusedDecodeWritesOnlyTheNewRowsInPlace) {
  const auto fused = load(tiny_model_path());
  const std::vector<int64_t> prompt = prompt_of(past_);
  step(*fused, prompt, 0);
  protect_past(true);  // a write to any past row now faults
  const auto got = step(*fused, {42}, past_);
  protect_past(false);
  for (size_t i = 1; i < got.size(); ++i) {  // the presents are the cache buffers themselves
    EXPECT_EQ(got[i].tensor.data(), caches_[i - 1]->data()) << got[i].name;
    EXPECT_FALSE(got[i].tensor.is_contiguous());
  }
  expect_like_dense(got, prompt, 42);
}

TEST_F(KvCache, UnfusedStridedViewsAreCopiedInAndOut) {
  const auto plain = load_plain();
  const std::vector<int64_t> prompt = prompt_of(past_);
  step(*plain, prompt, 0);
  const auto got = step(*plain, {42}, past_);
  for (size_t i = 1; i < got.size(); ++i) EXPECT_EQ(got[i].tensor.data(), caches_[i - 1]->data());
  expect_like_dense(got, prompt, 42);
}

// The Generator's tokens do not depend on fusion (one cache buffer per layer either way).
TEST_F(KvCache, GeneratorTokensWithAndWithoutFusion) {
  const auto fused = load(tiny_model_path());
  const auto plain = load_plain();
  const std::vector<int64_t> prompt = prompt_of(9);
  EXPECT_EQ(Generator(*fused, {32, {}}).generate(prompt, 12),
            Generator(*plain, {32, {}}).generate(prompt, 12));
}

}  // namespace
}  // namespace asc::test
