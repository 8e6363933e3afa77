// One exception hierarchy for the whole tree. Messages name the node, op and shapes they concern.
#pragma once

#include <stdexcept>
#include <string>

namespace asc {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The op (or version) asked for is not registered.
class UnsupportedError : public Error {
 public:
  using Error::Error;
};

// Shapes, dtypes or attributes do not satisfy an op's contract.
class ShapeError : public Error {
 public:
  using Error::Error;
};

// Inference needs the value of an input that is not known yet (a tensor computed at run time,
// or a data-dependent output size): the runtime then plans the node when the value exists.
class ValueUnknownError : public ShapeError {
 public:
  using ShapeError::ShapeError;
};

// A traced program does not fit the device's local memories.
class CapacityError : public Error {
 public:
  using Error::Error;
};

// The model file or its data is malformed or unsafe.
class ModelError : public Error {
 public:
  using Error::Error;
};

}  // namespace asc
