// SdpaTester implementation (see sdpa_tester.h).
#include "kernels/sdpa_tester.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <regex>
#include <utility>

#include "attnrt/runtime/arena.h"
#include "common/sdpa_case_inputs.h"
#include "common/sdpa_case_text.h"
#include "common/steerable_targets.h"
#include "host/aligned_buffer.h"
#include "host/thread_pool.h"
#include "hwy/targets.h"

namespace attnrt::testing {
namespace {

// Fills `n` floats after an optional one-float offset, so data can be misaligned.
float* Fill(std::vector<float>* buf, size_t n, bool misalign, std::mt19937* rng, float scale) {
  const size_t offset = misalign ? 1 : 0;
  buf->assign(n + offset + 16, 0.0f);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  float* data = buf->data() + offset;
  for (size_t i = 0; i < n; ++i) data[i] = normal(*rng) * scale;
  return data;
}

// A case the tester cannot build is a bug in the test, not in a kernel: stop loudly.
[[noreturn]] void CaseBug(const SdpaCase& c, const char* why) {
  std::fprintf(stderr, "SdpaTester: cannot build the case (%s): %s\n", why, Describe(c).c_str());
  std::abort();
}

}  // namespace

std::string Describe(const SdpaCase& c) {
  std::vector<char> text(Describe(c, nullptr, 0) + 1);
  Describe(c, text.data(), text.size());
  return text.data();
}

std::ostream& operator<<(std::ostream& os, const SdpaCase& c) { return os << Describe(c); }

SdpaTester::SdpaTester(const SdpaCase& c) : case_(c) {
  const TensorShape m = MaskTensorShape(c);
  const bool masked = c.mask != MaskKind::kNone;
  TensorShape out, weights;
  const Status st = BindSdpaShapes(QueryShape(c), KeyShape(c), ValueShape(c),
                                   masked ? &m : nullptr, c.mask, &params_, &out, &weights);
  if (!st.ok()) CaseBug(c, st.message());
  std::mt19937 rng(c.seed);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  auto unit = [&] { return uniform(rng); };
  const size_t nq = ElementCount(QueryShape(c)), nk = ElementCount(KeyShape(c));
  const size_t nv = ElementCount(ValueShape(c)), nm = masked ? ElementCount(m) : 0;
  float* q = Fill(&q_, nq, c.misalign, &rng, c.logit_magnitude);
  float* k = Fill(&k_, nk, c.misalign, &rng, c.logit_magnitude);
  float* v = Fill(&v_, nv, c.misalign, &rng, 1.0f);
  if (c.extreme == ExtremeKind::kHugeNegative) {
    for (size_t i = 0; i < nq; ++i) q[i] = HugeNegativeQuery(unit());
    for (size_t i = 0; i < nk; ++i) k[i] = HugeNegativeKey(unit());
  }
  params_.q = q;
  params_.k = k;
  params_.v = v;
  params_.causal = c.causal;
  if (c.scale != 0.0f) params_.scale = c.scale;
  params_.window = c.window;
  params_.softcap = c.softcap;
  if (c.alibi) {
    slopes_.resize(c.q_heads);
    for (size_t h = 0; h < c.q_heads; ++h) slopes_[h] = AlibiSlope(c, h);
    params_.alibi_slopes = slopes_.data();
  }
  if (c.sinks) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    sinks_.resize(c.q_heads);
    for (float& x : sinks_) x = SinkLogit(c, normal(rng));
    params_.sinks = sinks_.data();
  }
  mask_f_.resize(nm);
  mask_b_.resize(nm);
  FillMask(c, nm, unit, mask_f_.data(), mask_b_.data());
  if (c.mask == MaskKind::kBool) params_.mask = mask_b_.data();
  if (c.mask == MaskKind::kAdditive) params_.mask = mask_f_.data();
  if (!WriteBadValues(c, {q, nq, k, nk, v, nv, mask_f_.data(), mask_b_.data(), nm})) {
    CaseBug(c, "a poison lies outside its tensor, or there are too many");
  }
  if (c.kv_type != KvType::kF32) NarrowKeysAndValues();
}

// The cache holds every (batch, kv head, key) row densely, as BindSdpaShapes'
// strides say; q8 scales one per row. Misaligned by one element when asked.
void SdpaTester::NarrowKeysAndValues() {
  const SdpaCase& c = case_;
  const size_t rows = c.batch * c.kv_heads * c.S, elem = KvElementBytes(c.kv_type);
  const size_t offset = c.misalign ? elem : 0;
  k_typed_.assign(rows * c.E * elem + offset + 64, 0);
  v_typed_.assign(rows * c.Ev * elem + offset + 64, 0);
  k_scales_.assign(rows + 1, 0.0f);
  v_scales_.assign(rows + 1, 0.0f);
  void* k_data = k_typed_.data() + offset;
  void* v_data = v_typed_.data() + offset;
  float* k_scales = k_scales_.data() + (c.misalign ? 1 : 0);
  float* v_scales = v_scales_.data() + (c.misalign ? 1 : 0);
  if (!StoreKvRows(c.kv_type, params_.k, c.E, rows, c.E, k_data, c.E, k_scales, 1) ||
      !StoreKvRows(c.kv_type, params_.v, c.Ev, rows, c.Ev, v_data, c.Ev, v_scales, 1)) {
    CaseBug(c, "StoreKvRows refused the cache");
  }
  params_.kv_type = c.kv_type;
  params_.k = params_.v = nullptr;
  params_.k_data = k_data;
  params_.v_data = v_data;
  if (c.kv_type == KvType::kQ8) {
    params_.k_scales = k_scales;
    params_.v_scales = v_scales;
    params_.k_scale_strides = {c.kv_heads * c.S, c.S, 1};
    params_.v_scale_strides = {c.kv_heads * c.S, c.S, 1};
  }
}

std::string SdpaTester::Run(const SdpaKernel& kernel, SdpaResult* result) const {
  SdpaParams p = params_;
  const size_t offset = case_.misalign ? 1 : 0;
  std::vector<float> out_buf(p.batch * p.q_heads * p.q_len * p.v_dim + offset, NAN);
  std::vector<float> w_buf;
  p.out = out_buf.data() + offset;
  if (case_.want_weights) {
    w_buf.assign(p.batch * p.q_heads * p.q_len * p.kv_len + offset, NAN);
    p.weights = w_buf.data() + offset;
  }
  ThreadPool pool(case_.workers);
  size_t bytes = 0;
  Status st = SdpaScratchBytes(p, kernel, pool.workers(), &bytes);
  if (!st.ok()) return st.message();
  AlignedBuffer buffer(bytes);
  Arena arena(buffer.data(), bytes);
  st = RunSdpa(p, kernel, &arena, &pool);
  if (!st.ok()) return st.message();
  result->out.assign(p.out, p.out + out_buf.size() - offset);
  if (case_.want_weights) result->weights.assign(p.weights, p.weights + w_buf.size() - offset);
  return "";
}

size_t SdpaTester::InputBytes() const {
  return (q_.size() + k_.size() + v_.size() + mask_f_.size()) * sizeof(float) + mask_b_.size() +
         k_typed_.size() + v_typed_.size();
}

double SdpaTester::KeyAt(size_t index) const {
  const SdpaParams& p = params_;
  if (p.kv_type == KvType::kF32) return p.k[index];
  const double x = WidenKvElement(p.kv_type, p.k_data, index);
  return p.kv_type == KvType::kQ8 ? x * double(p.k_scales[index / p.qk_dim]) : x;
}

double SdpaTester::ValueAt(size_t index) const {
  const SdpaParams& p = params_;
  if (p.kv_type == KvType::kF32) return p.v[index];
  const double x = WidenKvElement(p.kv_type, p.v_data, index);
  return p.kv_type == KvType::kQ8 ? x * double(p.v_scales[index / p.v_dim]) : x;
}

size_t SdpaTester::MaskIndex(size_t b, size_t h, size_t i, size_t j) const {
  const SdpaCase& c = case_;
  switch (c.mask_shape) {
    case MaskShape::kLS: return i * c.S + j;
    case MaskShape::kBHLS: return ((b * c.q_heads + h) * c.L + i) * c.S + j;
    case MaskShape::kB1LS: return (b * c.L + i) * c.S + j;
    case MaskShape::kB11S: return b * c.S + j;
    case MaskShape::kL1: return i;
  }
  std::abort();
}

void SdpaTester::Float64(SdpaResult* result) const {
  const SdpaParams& p = params_;
  result->out.assign(p.batch * p.q_heads * p.q_len * p.v_dim, 0.0f);
  result->weights.assign(p.batch * p.q_heads * p.q_len * p.kv_len, 0.0f);
  std::vector<double> s(p.kv_len);
  const size_t group = p.q_heads / p.kv_heads;
  // Every key and value element as the kernels see it, widened once (not once per query).
  const size_t nk = ElementCount(KeyShape(case_)), nv = ElementCount(ValueShape(case_));
  std::vector<double> keys(nk), values(nv);
  for (size_t x = 0; x < nk; ++x) keys[x] = KeyAt(x);
  for (size_t x = 0; x < nv; ++x) values[x] = ValueAt(x);
  // The case's scale, else PyTorch's 1/sqrt(E) rounded to float32 (1 for E = 0, where
  // the runtime refuses to divide by zero): not the bound params', so a lost scale shows.
  const double scale = case_.scale != 0.0f ? double(case_.scale)
                       : p.qk_dim == 0     ? 1.0
                                           : double(float(1.0 / std::sqrt(double(p.qk_dim))));
  for (size_t b = 0; b < p.batch; ++b) {
    for (size_t h = 0; h < p.q_heads; ++h) {
      const size_t k0 = b * p.k_strides.batch + (h / group) * p.k_strides.head;
      const size_t v0 = b * p.v_strides.batch + (h / group) * p.v_strides.head;
      for (size_t i = 0; i < p.q_len; ++i) {
        const float* q = p.q + b * p.q_strides.batch + h * p.q_strides.head + i * p.q_strides.row;
        // diag(i): the key the causal rule aligns with query i.
        const double diag = case_.causal == CausalKind::kLowerRight
                                ? double(i) + double(p.kv_len) - double(p.q_len)
                                : double(i);
        double max = -INFINITY;
        bool nan = false;
        for (size_t j = 0; j < p.kv_len; ++j) {
          double dot = 0.0;
          for (size_t e = 0; e < p.qk_dim; ++e) dot += double(q[e]) * keys[k0 + j * p.k_strides.row + e];
          double score = dot * scale;
          if (case_.softcap > 0.0f) score = case_.softcap * std::tanh(score / case_.softcap);
          const double d = diag - double(j);
          bool visible = true;
          if (case_.causal != CausalKind::kNone && d < 0) visible = false;
          if (case_.window != 0 && d >= double(case_.window)) visible = false;
          if (case_.mask == MaskKind::kBool && mask_b_[MaskIndex(b, h, i, j)] == 0) visible = false;
          if (case_.mask == MaskKind::kAdditive) score += double(mask_f_[MaskIndex(b, h, i, j)]);
          if (case_.alibi) score += double(slopes_[h]) * (double(j) - diag);
          s[j] = visible ? score : -INFINITY;
          nan = nan || std::isnan(s[j]);
          max = std::max(max, s[j]);
        }
        float* out = result->out.data() + ((b * p.q_heads + h) * p.q_len + i) * p.v_dim;
        float* w = result->weights.data() + ((b * p.q_heads + h) * p.q_len + i) * p.kv_len;
        if (nan) {  // PyTorch's softmax: a NaN score makes the whole row NaN
          std::fill(out, out + p.v_dim, NAN);
          std::fill(w, w + p.kv_len, NAN);
          continue;
        }
        if (max == -INFINITY) continue;  // no visible key: zeros, sink or not
        const double sink = case_.sinks ? double(sinks_[h]) : -INFINITY;
        const double top = std::max(max, sink);
        double sum = std::exp(sink - top);
        for (size_t j = 0; j < p.kv_len; ++j) sum += (s[j] = std::exp(s[j] - top));
        for (size_t j = 0; j < p.kv_len; ++j) w[j] = static_cast<float>(s[j] / sum);
        for (size_t c = 0; c < p.v_dim; ++c) {
          double acc = 0.0;
          for (size_t j = 0; j < p.kv_len; ++j) acc += s[j] * values[v0 + j * p.v_strides.row + c];
          out[c] = static_cast<float>(acc / sum);
        }
      }
    }
  }
}

double MaxRelativeErrorNanAware(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  std::vector<float> a2(a), b2(b);
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) && std::isnan(b[i])) a2[i] = b2[i] = 0.0f;
  }
  return MaxRelativeError(a2, b2);
}

double MaxRelativeError(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  double max_ref = 1.0, max_diff = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    max_ref = std::max(max_ref, std::fabs(double(b[i])));
    // NaN compares false: count it as an infinite error.
    const double d = std::fabs(double(a[i]) - double(b[i]));
    max_diff = std::max(max_diff, std::isnan(d) ? INFINITY : d);
  }
  return max_diff / max_ref;
}

const SdpaKernel& ReferenceKernel() {
  return *FindSdpaKernel(SdpaFamily::kReference, SdpaAlgorithm::kReference);
}

std::vector<std::string> AvailableVariantNames() {
  std::vector<std::string> names;
  for (size_t i = 0; i < SdpaKernelCount(); ++i) {
    if (SdpaKernelAt(i).available()) names.push_back(SdpaKernelAt(i).name);
  }
  return names;
}

void PrintTo(const SdpaVariantTarget& v, std::ostream* os) {
  *os << v.variant;
  if (v.target != 0) *os << " on " << hwy::TargetName(v.target);
}

std::vector<int64_t> SteerableHighwayTargets(const SdpaKernel& kernel) {
  return SteerableTargets(kernel.isa);
}

std::vector<SdpaVariantTarget> AvailableVariantTargets() {
  std::vector<SdpaVariantTarget> params;
  for (const std::string& name : AvailableVariantNames()) {
    const SdpaKernel& k = *FindSdpaKernel(name.c_str());
    const std::vector<int64_t> targets =
        k.family == SdpaFamily::kHwy ? SteerableHighwayTargets(k) : std::vector<int64_t>();
    if (targets.empty()) params.push_back({name, 0});
    for (int64_t target : targets) params.push_back({name, target});
  }
  const char* skip = std::getenv("ATTNRT_TEST_SKIP_INSTANCES");
  if (skip == nullptr || *skip == '\0') return params;
  std::regex skipped;
  try {
    skipped = std::regex(skip);
  } catch (const std::regex_error& e) {
    std::fprintf(stderr, "ATTNRT_TEST_SKIP_INSTANCES=%s is not a regular expression: %s\n", skip,
                 e.what());
    std::exit(2);
  }
  std::vector<SdpaVariantTarget> kept;
  for (const SdpaVariantTarget& param : params) {
    if (!std::regex_match(InstanceName(param), skipped)) kept.push_back(param);
  }
  static bool said = false;  // gtest asks once per test
  if (!said) {
    std::printf("[ skipped  ] ATTNRT_TEST_SKIP_INSTANCES=%s: %zu of %zu instances kept\n", skip,
                kept.size(), params.size());
    said = true;
  }
  return kept;
}

void SdpaRegistryTest::SetUp() {
  const SdpaVariantTarget& param = GetParam();
  ASSERT_NE(FindSdpaKernel(param.variant.c_str()), nullptr) << param.variant;
  if (param.target == 0) return;
  hwy::SetSupportedTargetsForTest(param.target);
  // Fails if the variant does not follow Highway's dispatch to the target.
  ASSERT_EQ(std::string(kernel().isa()), hwy::TargetName(param.target)) << param.variant;
}

void SdpaRegistryTest::TearDown() {
  if (GetParam().target != 0) hwy::SetSupportedTargetsForTest(0);
}

const SdpaKernel& SdpaRegistryTest::kernel() const {
  return *FindSdpaKernel(GetParam().variant.c_str());
}

std::string CaseKey(const SdpaCase& c) {
  std::string key = c.name;
  key += '\0';
  auto add = [&key](const auto& field) {
    key.append(reinterpret_cast<const char*>(&field), sizeof(field));
  };
  add(c.batch), add(c.q_heads), add(c.kv_heads), add(c.L), add(c.S), add(c.E), add(c.Ev);
  add(c.mask), add(c.mask_shape), add(c.keep_probability), add(c.dead_every);
  add(c.causal), add(c.scale), add(c.window), add(c.alibi), add(c.alibi_scale);
  add(c.softcap), add(c.sinks), add(c.sink_magnitude), add(c.sink_offset);
  for (const BadValue& bad : c.poison) add(bad.tensor), add(bad.index), add(bad.value);
  add(c.poison_count), add(c.nonfinite_keys), add(c.nonfinite_queries), add(c.extreme);
  add(c.kv_type), add(c.logit_magnitude), add(c.misalign), add(c.want_weights);
  add(c.workers), add(c.seed);
  return key;
}
// The fields CaseKey lists, laid out on an LP64 build: a new field (unless it fits in
// padding) changes the size and stops the build here.
static_assert(sizeof(void*) != 8 || sizeof(SdpaCase) == 256,
              "SdpaCase changed: add the new field to CaseKey");

namespace {

// The cases of the test now running (gtest's suite and test name without the
// instance), by CaseKey: each case's tester (its random inputs) and oracle results,
// made once for all the test's instances. Bounded so that a test of many large cases
// cannot exhaust memory: past the bound, a case is built for its caller and not kept.
class CaseMemo {
 public:
  struct Entry {
    std::shared_ptr<const SdpaTester> tester;
    std::shared_ptr<const SdpaResult> reference, float64;
  };

  Entry* Find(const SdpaCase& c) {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string test = std::string(info->test_suite_name()) + "." + info->name();
    test = test.substr(0, test.rfind('/'));
    if (test != test_) {
      test_ = std::move(test);
      entries_.clear();
      bytes_ = 0;
    }
    const auto found = entries_.find(CaseKey(c));
    return found == entries_.end() ? nullptr : &found->second;
  }
  // Keeps `entry` for the case unless `bytes` more would pass the bound.
  void Keep(const SdpaCase& c, const Entry& entry, size_t bytes) {
    if (bytes_ + bytes > kMaxBytes) return;
    bytes_ += bytes;
    entries_[CaseKey(c)] = entry;
  }

 private:
  static constexpr size_t kMaxBytes = size_t{512} << 20;
  std::string test_;
  std::map<std::string, Entry> entries_;
  size_t bytes_ = 0;
};

CaseMemo& Memo() {
  static CaseMemo memo;
  return memo;
}

size_t ResultBytes(const SdpaResult& r) { return (r.out.size() + r.weights.size()) * sizeof(float); }

// The result in `slot` of the case's entry, else the one `compute` makes, kept there.
template <class Compute>
std::shared_ptr<const SdpaResult> SharedResult(const SdpaCase& c,
                                               std::shared_ptr<const SdpaResult> CaseMemo::Entry::*slot,
                                               Compute compute) {
  CaseMemo::Entry* e = Memo().Find(c);
  if (e != nullptr && e->*slot != nullptr) return e->*slot;
  auto result = std::make_shared<SdpaResult>();
  compute(result.get());
  if (e != nullptr) {
    CaseMemo::Entry kept = *e;
    kept.*slot = result;
    Memo().Keep(c, kept, ResultBytes(*result));
  }
  return result;
}

}  // namespace

std::shared_ptr<const SdpaTester> SdpaRegistryTest::SharedTester(const SdpaCase& c) {
  if (CaseMemo::Entry* e = Memo().Find(c)) return e->tester;
  auto tester = std::make_shared<const SdpaTester>(c);
  Memo().Keep(c, {tester, nullptr, nullptr}, tester->InputBytes());
  return tester;
}

std::shared_ptr<const SdpaResult> SdpaRegistryTest::ReferenceResult(const SdpaCase& c) {
  const std::shared_ptr<const SdpaTester> tester = SharedTester(c);
  return SharedResult(c, &CaseMemo::Entry::reference, [&](SdpaResult* result) {
    // A case the reference refuses is a bug in the test: fail here; the empty result
    // then fails every comparison.
    EXPECT_EQ(tester->Run(ReferenceKernel(), result), "") << "the reference kernel refused " << c;
  });
}

std::shared_ptr<const SdpaResult> SdpaRegistryTest::Float64Result(const SdpaCase& c) {
  const std::shared_ptr<const SdpaTester> tester = SharedTester(c);
  return SharedResult(c, &CaseMemo::Entry::float64,
                      [&](SdpaResult* result) { tester->Float64(result); });
}

void SdpaRegistryTest::Check(SdpaCase c) {
  c.want_weights = c.want_weights && kernel().returns_weights;
  SdpaResult got;
  ASSERT_EQ(SharedTester(c)->Run(kernel(), &got), "") << c;
  const std::shared_ptr<const SdpaResult> want = ReferenceResult(c);
  // NaN rows are expected only from bad inputs; elsewhere a NaN is an error even where
  // the reference has one too.
  const auto error = c.HasNonFiniteInputs() ? MaxRelativeErrorNanAware : MaxRelativeError;
  EXPECT_LE(error(got.out, want->out), kSdpaTolerance) << "output, " << c;
  if (c.want_weights) {
    EXPECT_LE(error(got.weights, want->weights), kSdpaTolerance) << "weights, " << c;
  }
}

namespace {
size_t g_float64_checks = 0;

// Float64 checks per variant (and Highway target) and per score variant, printed when
// the test program ends: the parity counts issue 16 asks for.
struct ParityCounts {
  size_t cases = 0, window = 0, alibi = 0, softcap = 0, sinks = 0, failed = 0;
};
std::map<std::string, ParityCounts>& Counts() {
  static std::map<std::string, ParityCounts> counts;
  return counts;
}

class ParityCountPrinter : public ::testing::Environment {
 public:
  void TearDown() override {
    if (Counts().empty()) return;
    std::printf("[ parity   ] float64 checks per variant: cases (window alibi softcap sinks) failed\n");
    for (const auto& [name, c] : Counts()) {
      std::printf("[ parity   ] %-32s %5zu (%zu %zu %zu %zu) %zu\n", name.c_str(), c.cases, c.window,
                  c.alibi, c.softcap, c.sinks, c.failed);
    }
  }
};
const ::testing::Environment* const kParityCountPrinter =
    ::testing::AddGlobalTestEnvironment(new ParityCountPrinter);
}  // namespace

size_t Float64ChecksRun() { return g_float64_checks; }

void SdpaRegistryTest::CheckFloat64(SdpaCase c) {
  c.want_weights = c.want_weights && kernel().returns_weights;
  SdpaResult got;
  ASSERT_EQ(SharedTester(c)->Run(kernel(), &got), "") << c;
  const std::shared_ptr<const SdpaResult> want = Float64Result(c);
  ++g_float64_checks;
  const bool out_ok = MaxRelativeErrorNanAware(got.out, want->out) <= kSdpaTolerance;
  EXPECT_LE(MaxRelativeErrorNanAware(got.out, want->out), kSdpaTolerance)
      << "output vs float64, " << c;
  bool weights_ok = true;
  if (c.want_weights) {
    weights_ok = MaxRelativeErrorNanAware(got.weights, want->weights) <= kSdpaTolerance;
    EXPECT_LE(MaxRelativeErrorNanAware(got.weights, want->weights), kSdpaTolerance)
        << "weights vs float64, " << c;
  }
  std::string name = GetParam().variant;
  if (GetParam().target != 0) name += std::string(" ") + hwy::TargetName(GetParam().target);
  ParityCounts& n = Counts()[name];
  ++n.cases;
  n.window += c.window != 0;
  n.alibi += c.alibi;
  n.softcap += c.softcap != 0.0f;
  n.sinks += c.sinks;
  n.failed += !(out_ok && weights_ok);
}

std::string InstanceName(const SdpaVariantTarget& param) {
  std::string name = param.variant;
  for (char& ch : name) {
    if (ch == '-') ch = '_';
  }
  if (param.target != 0) name += std::string("_") + hwy::TargetName(param.target);
  return name;
}

std::string VariantTestName(const ::testing::TestParamInfo<SdpaVariantTarget>& info) {
  return InstanceName(info.param);
}

}  // namespace attnrt::testing
