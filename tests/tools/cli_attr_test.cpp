// asc-ops --attr k=v (cli::parse_attr): an int, a float, a string, and comma lists of ints, of
// floats and of strings (an RNN's activations), each as its attribute kind; a malformed one is
// an error naming it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "registry/error.h"
#include "tools/cli_common.h"

namespace asc {
namespace {

AttrValue parsed(const std::string& s) {
  Attrs a;
  cli::parse_attr(s, a);
  const auto it = a.all().find(s.substr(0, s.find('=')));
  EXPECT_NE(it, a.all().end()) << s;
  return it == a.all().end() ? AttrValue{} : it->second;
}

TEST(CliAttr, KindsFromTheValue) {
  EXPECT_EQ(std::get<int64_t>(parsed("axis=-1")), -1);
  EXPECT_EQ(std::get<float>(parsed("alpha=0.5")), 0.5f);
  EXPECT_EQ(std::get<std::string>(parsed("mode=constant")), "constant");
  EXPECT_EQ(std::get<std::string>(parsed("name=1abc")), "1abc");
  EXPECT_EQ(std::get<std::vector<int64_t>>(parsed("perm=0,2,1")), (std::vector<int64_t>{0, 2, 1}));
  EXPECT_EQ(std::get<std::vector<float>>(parsed("scales=1,2.5")), (std::vector<float>{1, 2.5f}));
  EXPECT_EQ(std::get<std::vector<std::string>>(parsed("activations=Sigmoid,Tanh,Tanh")),
            (std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}));
  EXPECT_EQ(std::get<std::vector<std::string>>(parsed("x=1,Tanh")),
            (std::vector<std::string>{"1", "Tanh"}));
}

TEST(CliAttr, MalformedIsAnError) {
  Attrs a;
  EXPECT_THROW(cli::parse_attr("novalue", a), Error);
  EXPECT_THROW(cli::parse_attr("=3", a), Error);
}

}  // namespace
}  // namespace asc
