#include "registry/dsl.h"

#include "registry/error.h"
#include "registry/strings.h"

namespace asc {

TileBuilder::TileBuilder(const LaunchContext& ctx, const TilingData& tiling)
    : ctx_(&ctx), tiling_(tiling) {
  prog_.op = ctx.str();
  prog_.args = ctx.inputs;
  prog_.args.insert(prog_.args.end(), ctx.outputs.begin(), ctx.outputs.end());
  prog_.num_inputs = static_cast<int>(ctx.inputs.size());
  prog_.grid = tiling.grid;
  prog_.block_dim = tiling.block_dim;
}

void TileBuilder::check(Buf b, const char* what) const {
  if (b.b != this || b.id < 0 || b.id >= static_cast<int>(prog_.buffers.size()))
    throw ShapeError(prog_.op + ": " + what + " got a buffer of another program");
}

Buf TileBuilder::new_buffer(Pos pos, DType dtype, Shape dims, std::string name, bool copy_in) {
  BufferDecl d;
  d.id = static_cast<int>(prog_.buffers.size());
  d.name = name.empty() ? cat("t", d.id) : std::move(name);
  d.pos = pos;
  d.dtype = dtype;
  d.dims = std::move(dims);
  d.copy_in = copy_in;
  prog_.buffers.push_back(std::move(d));
  return Buf{prog_.buffers.back().id, this};
}

Buf TileBuilder::emit(Instr in, Pos pos, DType dtype, Shape dims, const char* name) {
  Buf out = new_buffer(pos, dtype, std::move(dims), name ? name : "");
  in.dst = out.id;
  prog_.instrs.push_back(in);
  return out;
}

int TileBuilder::loop_begin(int64_t count) {
  Instr in;
  in.kind = InstrKind::kLoopBegin;
  in.count = count;
  in.var = prog_.grid_rank() + prog_.num_loop_vars++;
  prog_.instrs.push_back(in);
  ++open_loops_;
  return in.var;
}

void TileBuilder::loop_end() {
  Instr in;
  in.kind = InstrKind::kLoopEnd;
  prog_.instrs.push_back(in);
  --open_loops_;
}

Buf TileBuilder::copy_in(int input, const GmBox& box, Pos pos, std::string name, Shape as) {
  if (!splices_.empty()) {
    const SpliceFrame& f = splices_.back();
    if (input < 0 || input >= static_cast<int>(f.inputs.size()) || !f.inputs[input].valid() ||
        pos != Pos::kUB)
      throw ShapeError(cat(prog_.op, ": spliced ", ctx_->str(), " reads input ", input,
                           pos != Pos::kUB ? " outside UB" : ", which is not bound"));
    return f.inputs[input];
  }
  if (input < 0 || input >= prog_.num_inputs)
    throw ShapeError(prog_.op + ": copy_in of input " + std::to_string(input) + " out of range");
  if (!as.empty() && numel(as) != numel(box.sizes()))
    throw ShapeError(cat(prog_.op, ": copy_in box ", to_string(box.sizes()), " read as ",
                         to_string(as), " (a different element count)"));
  Instr in;
  in.kind = InstrKind::kCopyIn;
  in.arg = input;
  in.box = box;
  Buf out = new_buffer(pos, ctx_->inputs[input].dtype, as.empty() ? box.sizes() : as,
                       name.empty() ? "in" + std::to_string(input) : std::move(name), true);
  in.dst = out.id;
  prog_.instrs.push_back(in);
  return out;
}

void TileBuilder::copy_out(int output, Buf src, const GmBox& box) {
  check(src, "copy_out");
  if (!splices_.empty()) {
    SpliceFrame& f = splices_.back();
    if (output < 0 || output >= static_cast<int>(f.outputs.size()))
      throw ShapeError(cat(prog_.op, ": spliced ", ctx_->str(), " writes output ", output));
    f.outputs[output] = src;
    return;
  }
  if (output < 0 || output >= static_cast<int>(ctx_->outputs.size()))
    throw ShapeError(prog_.op + ": copy_out to output " + std::to_string(output) + " out of range");
  if (numel(box.sizes()) != numel(dims(src)))
    throw ShapeError(prog_.op + ": copy_out box " + to_string(box.sizes()) + " != buffer " +
                     to_string(dims(src)));
  Instr in;
  in.kind = InstrKind::kCopyOut;
  in.arg = prog_.num_inputs + output;
  in.src[0] = src.id;
  in.box = box;
  prog_.instrs.push_back(in);
}

Buf TileBuilder::unary(UnaryOp op, Buf x, float alpha, float beta) {
  check(x, "unary");
  Instr in;
  in.kind = InstrKind::kUnary;
  in.op = static_cast<uint8_t>(op);
  in.src[0] = x.id;
  in.alpha = alpha;
  in.beta = beta;
  return emit(in, Pos::kUB, dtype(x), dims(x), nullptr);
}

Buf TileBuilder::binary(BinaryOp op, Buf a, Buf b) {
  check(a, "binary");
  check(b, "binary");
  if (numel(dims(a)) != numel(dims(b)) || dtype(a) != dtype(b))
    throw ShapeError(prog_.op + ": binary " + std::string(op_name(op)) + " of " +
                     std::string(dtype_name(dtype(a))) + to_string(dims(a)) + " and " +
                     std::string(dtype_name(dtype(b))) + to_string(dims(b)));
  const bool folds = dtype_is_float(dtype(a)) &&
                     (op == BinaryOp::kAdd || op == BinaryOp::kSub || op == BinaryOp::kMul ||
                      op == BinaryOp::kDiv || op == BinaryOp::kMax || op == BinaryOp::kMin);
  const auto ka = known_.find(a.id), kb = known_.find(b.id);
  if (folds && kb != known_.end() && ka == known_.end()) return scalar(op, a, kb->second);
  if (folds && ka != known_.end() && kb == known_.end()) return scalar(op, b, ka->second, true);
  // x ^ c for a known float exponent: one scalar-parameter instruction (Ascend's Power with a
  // scalar exponent; the cpu squares, takes roots or reciprocals for the common exponents).
  if (op == BinaryOp::kPow && dtype_is_float(dtype(a)) && kb != known_.end() &&
      ka == known_.end() && static_cast<double>(static_cast<float>(kb->second)) == kb->second)
    return unary(UnaryOp::kPowScalar, a, static_cast<float>(kb->second));
  Instr in;
  in.kind = InstrKind::kBinary;
  in.op = static_cast<uint8_t>(op);
  in.src[0] = a.id;
  in.src[1] = b.id;
  return emit(in, Pos::kUB, dtype(a), dims(a), nullptr);
}

Buf TileBuilder::scalar(BinaryOp op, Buf a, double s, bool scalar_left) {
  check(a, "scalar");
  Instr in;
  in.kind = InstrKind::kScalar;
  in.op = static_cast<uint8_t>(op);
  in.src[0] = a.id;
  in.scalar = s;
  in.scalar_left = scalar_left;
  return emit(in, Pos::kUB, dtype(a), dims(a), nullptr);
}

Buf TileBuilder::bcast_mid(BinaryOp op, Buf a, Buf b, int axis) {
  check(a, "bcast_mid");
  check(b, "bcast_mid");
  Shape expect = dims(a);
  if (axis < 0 || axis >= static_cast<int>(expect.size()))
    throw ShapeError(prog_.op + ": bcast_mid axis out of range");
  expect[axis] = 1;
  if (numel(dims(b)) != numel(expect) || dtype(a) != dtype(b))
    throw ShapeError(prog_.op + ": bcast_mid of " + to_string(dims(a)) + " and " +
                     to_string(dims(b)) + " along axis " + std::to_string(axis));
  Instr in;
  in.kind = InstrKind::kBcastMid;
  in.op = static_cast<uint8_t>(op);
  in.src[0] = a.id;
  in.src[1] = b.id;
  in.axis = axis;
  return emit(in, Pos::kUB, dtype(a), dims(a), nullptr);
}

Buf TileBuilder::compare(CmpOp op, Buf a, Buf b) {
  check(a, "compare");
  check(b, "compare");
  if (numel(dims(a)) != numel(dims(b)) || dtype(a) != dtype(b))
    throw ShapeError(prog_.op + ": compare of mismatched buffers");
  Instr in;
  in.kind = InstrKind::kCompare;
  in.op = static_cast<uint8_t>(op);
  in.src[0] = a.id;
  in.src[1] = b.id;
  return emit(in, Pos::kUB, DType::kBool, dims(a), nullptr);
}

Buf TileBuilder::select(Buf cond, Buf a, Buf b) {
  check(cond, "select");
  check(a, "select");
  check(b, "select");
  if (numel(dims(a)) != numel(dims(b)) || numel(dims(cond)) != numel(dims(a)) ||
      dtype(a) != dtype(b) || dtype_size(dtype(cond)) != 1)
    throw ShapeError(prog_.op + ": select of mismatched buffers");
  Instr in;
  in.kind = InstrKind::kSelect;
  in.src[0] = cond.id;
  in.src[1] = a.id;
  in.src[2] = b.id;
  return emit(in, Pos::kUB, dtype(a), dims(a), nullptr);
}

Buf TileBuilder::cast(Buf x, DType to) {
  check(x, "cast");
  if (dtype(x) == to) return x;
  // A known value widens exactly (f16/bf16 -> f32 -> f64).
  if (const auto k = known_.find(x.id); k != known_.end() && dtype_is_float(dtype(x)) &&
                                        (to == DType::kF32 || to == DType::kF64) &&
                                        dtype_size(to) >= dtype_size(dtype(x)))
    return known_scalar(to, dims(x), k->second);
  Instr in;
  in.kind = InstrKind::kCast;
  in.src[0] = x.id;
  return emit(in, Pos::kUB, to, dims(x), nullptr);
}

Buf TileBuilder::reduce(ReduceOp op, Buf x, int axis) {
  check(x, "reduce");
  Shape d = dims(x);
  if (axis < 0 || axis >= static_cast<int>(d.size()))
    throw ShapeError(prog_.op + ": reduce axis out of range");
  d[axis] = 1;
  Instr in;
  in.kind = InstrKind::kReduce;
  in.op = static_cast<uint8_t>(op);
  in.src[0] = x.id;
  in.axis = axis;
  return emit(in, Pos::kUB, dtype(x), d, nullptr);
}

Buf TileBuilder::duplicate(DType dt, Shape d, double value) {
  Instr in;
  in.kind = InstrKind::kDuplicate;
  in.scalar = value;
  return emit(in, Pos::kUB, dt, std::move(d), nullptr);
}

void TileBuilder::accumulate(BinaryOp op, Buf acc, Buf x) {
  check(acc, "accumulate");
  check(x, "accumulate");
  if (numel(dims(acc)) != numel(dims(x)) || dtype(acc) != dtype(x) || decl(acc).pos != Pos::kUB)
    throw ShapeError(prog_.op + ": accumulate into " + std::string(dtype_name(dtype(acc))) +
                     to_string(dims(acc)) + " from " + std::string(dtype_name(dtype(x))) +
                     to_string(dims(x)));
  Instr in;
  in.kind = InstrKind::kBinary;
  in.op = static_cast<uint8_t>(op);
  in.dst = acc.id;
  in.src[0] = acc.id;
  in.src[1] = x.id;
  in.in_place = true;
  prog_.instrs.push_back(in);
}

Buf TileBuilder::alloc(Pos pos, DType dt, Shape d, std::string name) {
  return new_buffer(pos, dt, std::move(d), std::move(name));
}

namespace {
bool int8(DType d) {
  return d == DType::kI8 || d == DType::kU8;
}
}  // namespace

void TileBuilder::check_zero(Buf l1, Buf zero, int64_t per, const char* what) const {
  if (!zero.valid()) return;
  check(zero, what);
  const int64_t n = numel(dims(zero));
  if (!int8(dtype(l1)) || decl(zero).pos != Pos::kUB || (n != 1 && n != per) ||
      !(int8(dtype(zero)) || dtype(zero) == DType::kI32))
    throw ShapeError(cat(prog_.op, ": ", what, "'s zero point must be a UB integer buffer of 1",
                         per > 1 ? cat(" or ", per) : std::string(),
                         " values for an i8/u8 operand; got ", dtype_name(dtype(zero)),
                         to_string(dims(zero)), " for ", dtype_name(dtype(l1)),
                         to_string(dims(l1))));
}

Buf TileBuilder::gather(Buf x, Shape dims, Shape strides, int64_t offset, Shape as) {
  check(x, "gather");
  const int64_t n = numel(this->dims(x));
  int64_t lo = offset, hi = offset;
  for (size_t j = 0; j < dims.size() && j < strides.size(); ++j)
    if (dims[j] > 1) (strides[j] < 0 ? lo : hi) += (dims[j] - 1) * strides[j];
  const bool empty = numel(dims) == 0;
  const Pos from = decl(x).pos;
  if ((from != Pos::kUB && from != Pos::kL0C) || dims.size() != strides.size() ||
      (!empty && (lo < 0 || hi >= n)))
    throw ShapeError(cat(prog_.op, ": gather of ", to_string(dims), " at strides ",
                         to_string(strides), " from element ", offset, " of ",
                         pos_name(decl(x).pos), " ", to_string(this->dims(x)),
                         " (a view inside a UB or L0C buffer)"));
  if (!as.empty() && numel(as) != numel(dims))
    throw ShapeError(cat(prog_.op, ": gather of ", to_string(dims), " shaped as ", to_string(as),
                         " (a different element count)"));
  Instr in;
  in.kind = InstrKind::kGather;
  in.src[0] = x.id;
  in.box.offset = offset;
  for (size_t j = 0; j < dims.size(); ++j)
    in.box.dims.push_back(BoxDim{dims[j], strides[j], Coord{}, dims[j]});
  return emit(in, Pos::kUB, dtype(x), as.empty() ? dims : as, "g");
}

Buf TileBuilder::transpose(Buf x, int axis, Shape as) {
  check(x, "transpose");
  const Shape& d = dims(x);
  if (axis < 0 || axis >= static_cast<int>(d.size()))
    throw ShapeError(cat(prog_.op, ": transpose of axis ", axis, " of ", to_string(d)));
  Shape vd, vs;
  int64_t stride = 1;
  Shape strides(d.size());
  for (size_t j = d.size(); j-- > 0;) {
    strides[j] = stride;
    stride *= d[j];
  }
  for (size_t j = 0; j < d.size(); ++j)
    if (j != static_cast<size_t>(axis)) vd.push_back(d[j]), vs.push_back(strides[j]);
  vd.push_back(d[static_cast<size_t>(axis)]);
  vs.push_back(strides[static_cast<size_t>(axis)]);
  return gather(x, vd, vs, 0, std::move(as));
}

Buf TileBuilder::load_l0(Buf l1, Pos pos, Buf zero) {
  check(l1, "load_l0");
  if (pos != Pos::kL0A && pos != Pos::kL0B)
    throw ShapeError(prog_.op + ": load_l0 targets L0A or L0B");
  const Shape& d = dims(l1);
  const int64_t rows = d.size() >= 2 ? d[d.size() - 2] : 1, cols = d.empty() ? 1 : d.back();
  check_zero(l1, zero, pos == Pos::kL0A ? rows : cols, "load_l0");
  Instr in;
  in.kind = InstrKind::kLoadL0;
  in.src[0] = l1.id;
  in.src[1] = zero.valid() ? zero.id : -1;
  return emit(in, pos, dtype(l1), dims(l1), pos == Pos::kL0A ? "a0" : "b0");
}

Buf TileBuilder::load_l0_panels(Buf l1, int64_t panel, int k_pack, int64_t n, Pos pos) {
  check(l1, "load_l0_panels");
  const Shape& full = dims(l1);  // [1.., panels, k * panel]
  bool lead_ones = full.size() >= 2;
  for (size_t i = 0; lead_ones && i + 2 < full.size(); ++i) lead_ones = full[i] == 1;
  const Shape d = lead_ones ? Shape{full[full.size() - 2], full.back()} : full;
  if (d.size() != 2 || panel <= 0 || (k_pack != 1 && k_pack != 2) || d[1] % panel != 0 ||
      (d[1] / panel) % k_pack != 0)
    throw ShapeError(cat(prog_.op, ": load_l0_panels needs [panels, k * ", panel,
                         "] with k a multiple of k_pack ", k_pack, "; got ", to_string(d)));
  Instr in;
  in.kind = InstrKind::kLoadL0;
  in.src[0] = l1.id;
  in.axis = static_cast<int>(panel);
  in.op = static_cast<uint8_t>(k_pack);
  in.count = n;
  if (pos == Pos::kL0A) return emit(in, pos, dtype(l1), {d[0] * panel, d[1] / panel}, "a0");
  if (pos != Pos::kL0B) throw ShapeError(prog_.op + ": load_l0_panels targets L0A or L0B");
  return emit(in, Pos::kL0B, dtype(l1), {d[1] / panel, d[0] * panel}, "b0");
}

Buf TileBuilder::load_l0_im2col(Buf l1, Pos pos, const Im2col& g, Buf zero) {
  check(l1, "load_l0_im2col");
  check_zero(l1, zero, 1, "load_l0_im2col");
  const Shape& d = dims(l1);
  const size_t r = static_cast<size_t>(g.source_rank());  // [C, D, H, W] or [C1, D, H, W, C0]
  const Pos from = decl(l1).pos;
  bool ok = d.size() >= r && (from == Pos::kL1 || from == Pos::kUB) &&
            (pos == Pos::kL0A || pos == Pos::kL0B) && g.c0 >= 1 && (g.c0 == 1 || d.back() == g.c0);
  for (size_t i = 0; ok && i + r < d.size(); ++i) ok = d[i] == 1;
  for (int j = 0; ok && j < 3; ++j)
    ok = g.k[j] >= 1 && g.s[j] >= 1 && g.d[j] >= 1 && g.out[j] >= 1 &&
         d[d.size() - r + 1 + static_cast<size_t>(j)] >= g.span(j);
  if (!ok)
    throw ShapeError(cat(prog_.op, ": load_l0_im2col needs an L1 (or UB) box ",
                         g.c0 > 1 ? cat("[C1, D, H, W, ", g.c0, "]") : std::string("[C, D, H, W]"),
                         " covering ", g.span(0), "x", g.span(1), "x", g.span(2),
                         " into L0A/L0B; got ", pos_name(decl(l1).pos), " ", to_string(d), " -> ",
                         pos_name(pos)));
  Instr in;
  in.kind = InstrKind::kLoadIm2col;
  in.src[0] = l1.id;
  in.src[1] = zero.valid() ? zero.id : -1;
  in.im2col = g;
  const int64_t k = d[d.size() - r] * g.window() * g.c0, p = g.positions();
  return emit(in, pos, dtype(l1), pos == Pos::kL0B ? Shape{k, p} : Shape{p, k},
              pos == Pos::kL0A ? "a0" : "b0");
}

void TileBuilder::mmad(Buf c, Buf a, Buf b, Coord k, int64_t diag) {
  check(c, "mmad");
  check(a, "mmad");
  check(b, "mmad");
  // Operands are matrices over their last two dims; leading dims must be 1 (a batched GM box
  // gives [1, .., m, k]).
  auto matrix = [](const Shape& d) {
    bool ok = d.size() >= 2;
    for (size_t i = 0; ok && i + 2 < d.size(); ++i) ok = d[i] == 1;
    return ok ? Shape{d[d.size() - 2], d.back()} : Shape{};
  };
  const Shape &dc = dims(c), &da = dims(a), &db = dims(b);
  const Shape mc = matrix(dc), ma = matrix(da), mb = matrix(db);
  // An A loaded from pre-packed panels holds K rounded up to its k_pack (zeros past K).
  int64_t a_pad = 0;
  for (auto it = prog_.instrs.rbegin(); it != prog_.instrs.rend(); ++it)
    if (it->dst == a.id && it->kind == InstrKind::kLoadL0) {
      if (it->axis > 0) a_pad = it->op - 1;
      break;
    }
  const bool k_ok = !ma.empty() && !mb.empty() && ma[1] >= mb[0] && ma[1] - mb[0] <= a_pad;
  // Integer form: i8/u8 operands (both) into an i32 accumulator.
  const bool ints = int8(dtype(a)) || int8(dtype(b));
  const bool types_ok =
      ints ? int8(dtype(a)) && int8(dtype(b)) && dtype(c) == DType::kI32 : dtype(c) == DType::kF32;
  if (mc.empty() || ma.empty() || mb.empty() || ma[0] != mc[0] || mb[1] != mc[1] ||
      !(ma[1] == mb[0] || k_ok) || decl(c).pos != Pos::kL0C || !types_ok)
    throw ShapeError(cat(prog_.op,
                         ": mmad needs L0C f32 c[m,n], a[m,k], b[k,n] (i32 c for i8/u8 a "
                         "and b); got c ",
                         dtype_name(dtype(c)), to_string(dc), " a ", dtype_name(dtype(a)),
                         to_string(da), " b ", dtype_name(dtype(b)), to_string(db)));
  Instr in;
  in.kind = InstrKind::kMmad;
  in.dst = c.id;
  in.src[0] = a.id;
  in.src[1] = b.id;
  in.var = k.var;
  in.diag = std::max<int64_t>(diag, 0);
  in.in_place = k.var < 0 && k.offset != 0;
  prog_.instrs.push_back(in);
}

std::vector<Buf> TileBuilder::splice(const LaunchContext& ctx, std::span<const Buf> inputs,
                                     const std::function<void(TileBuilder&)>& kernel) {
  for (const Buf& b : inputs)
    if (b.valid()) check(b, "splice");
  splices_.push_back({{inputs.begin(), inputs.end()}, std::vector<Buf>(ctx.outputs.size())});
  const LaunchContext* outer = ctx_;
  ctx_ = &ctx;
  try {
    kernel(*this);
  } catch (...) {
    ctx_ = outer;
    splices_.pop_back();
    throw;
  }
  ctx_ = outer;
  std::vector<Buf> out = std::move(splices_.back().outputs);
  splices_.pop_back();
  return out;
}

Buf TileBuilder::known_scalar(DType dt, Shape d, double value) {
  Buf b = duplicate(dt, std::move(d), value);
  known_[b.id] = value;
  return b;
}

TileProgram TileBuilder::finish() && {
  if (open_loops_ != 0) throw ShapeError(prog_.op + ": unbalanced loop in tile kernel");
  // Known scalars every reader folded: their duplicates go (the buffers stay unplaced).
  std::vector<bool> read(prog_.buffers.size(), false);
  for (const Instr& in : prog_.instrs) {
    for (int s : in.src)
      if (s >= 0) read[static_cast<size_t>(s)] = true;
    if (in.dst >= 0 && !(in.kind == InstrKind::kDuplicate && known_.count(in.dst)))
      read[static_cast<size_t>(in.dst)] = true;  // written by another instruction too
  }
  std::erase_if(prog_.instrs, [&](const Instr& in) {
    return in.kind == InstrKind::kDuplicate && known_.count(in.dst) &&
           !read[static_cast<size_t>(in.dst)];
  });
  return std::move(prog_);
}

Buf operator+(Buf a, Buf b) {
  return a.b->binary(BinaryOp::kAdd, a, b);
}
Buf operator-(Buf a, Buf b) {
  return a.b->binary(BinaryOp::kSub, a, b);
}
Buf operator*(Buf a, Buf b) {
  return a.b->binary(BinaryOp::kMul, a, b);
}
Buf operator/(Buf a, Buf b) {
  return a.b->binary(BinaryOp::kDiv, a, b);
}
Buf operator+(Buf a, double s) {
  return a.b->scalar(BinaryOp::kAdd, a, s);
}
Buf operator-(Buf a, double s) {
  return a.b->scalar(BinaryOp::kSub, a, s);
}
Buf operator*(Buf a, double s) {
  return a.b->scalar(BinaryOp::kMul, a, s);
}
Buf operator/(Buf a, double s) {
  return a.b->scalar(BinaryOp::kDiv, a, s);
}
Buf operator-(Buf a) {
  return a.b->unary(UnaryOp::kNeg, a);
}
Buf exp(Buf x) {
  return x.b->unary(UnaryOp::kExp, x);
}
Buf log(Buf x) {
  return x.b->unary(UnaryOp::kLog, x);
}
Buf sqrt(Buf x) {
  return x.b->unary(UnaryOp::kSqrt, x);
}
Buf max(Buf a, Buf b) {
  return a.b->binary(BinaryOp::kMax, a, b);
}
Buf min(Buf a, Buf b) {
  return a.b->binary(BinaryOp::kMin, a, b);
}

}  // namespace asc
