// Runs a tool binary from a test with stdout and stderr captured.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace asc::test {

struct Result {
  int code = -1;  // exit code; -1 when killed by a signal
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Runs `ENV 'EXE' ARGS` through the shell, capturing into stdout.txt / stderr.txt in `dir`.
inline Result run_tool(const std::string& exe, const std::string& args,
                       const std::filesystem::path& dir, const std::string& env = "") {
  const std::filesystem::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd =
      env + " '" + exe + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

}  // namespace asc::test
