// The emulator's vector unit (include kernel_operator.h): the Atlas A2 vector calls on UB operands
// of a vector core, in their level-2 (count) and level-0 (mask, repeatTime, repeat params) forms.
#pragma once

#include "emu_vec_activation.h"   // Sigmoid, Tanh, Erf, Silu (advanced, emu_vec_adv.h)
#include "emu_vec_base.h"         // element types, operand checks, the repeat geometry
#include "emu_vec_cast.h"         // Cast with RoundMode
#include "emu_vec_cmpsel.h"       // Compare, CompareScalar, Select, Get/SetCmpMask
#include "emu_vec_elementwise.h"  // binary, unary, with a scalar, Axpy, Duplicate
#include "emu_vec_gather.h"       // Gather (count form)
#include "emu_vec_mask.h"         // SetMaskCount/SetMaskNorm/SetVectorMask/ResetMask, params
#include "emu_vec_math.h"         // Power, Fmod, Xor, Sign, Sin, Cos, Floor, Ceil, Round
#include "emu_vec_reduce.h"       // ReduceSum/Max/Min, WholeReduce*, BlockReduce*, PairReduceSum
