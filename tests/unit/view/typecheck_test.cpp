// Editor support: views/lib/runtime.d.ts + views/tsconfig.json give authors type errors. Runs the
// pinned TypeScript compiler (tools/node_modules, installed by scripts/setup) over two views.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

std::string RunTsc() {
  std::string cmd = std::string("cd '") + AFFORDANCE_SOURCE_DIR +
                    "' && node tools/node_modules/typescript/bin/tsc -p "
                    "tests/unit/view/data/types/tsconfig.json 2>&1";
  std::string out;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return "popen failed";
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  pclose(pipe);
  return out;
}

TEST(ViewTypes, DeclarationsCatchAuthorMistakesAndAcceptCorrectViews) {
  std::string out = RunTsc();
  ASSERT_EQ(out.find("Cannot find module"), std::string::npos) << out;
  EXPECT_EQ(out.find("ok.tsx"), std::string::npos) << out;
  // setState with the wrong type, a button without its label, a token without its name, an
  // unknown intrinsic element.
  EXPECT_NE(out.find("bad.tsx(6,8): error TS2345"), std::string::npos) << out;
  EXPECT_NE(out.find("bad.tsx(7,16): error TS2322"), std::string::npos) << out;
  EXPECT_NE(out.find("bad.tsx(7,45): error TS2322"), std::string::npos) << out;
  EXPECT_NE(out.find("bad.tsx(7,53): error TS2339"), std::string::npos) << out;
}

}  // namespace
