// rea-sampler: the sampler helper (README.md). The skeleton is helpers/common/helper-main; the
// hooks are in server.c++.
#include "helpers/common/helper-main.h"
#include "helpers/sampler/server.h"

int main(int argc, char** argv) {
  auto spec = rea::helper::samplerHelperSpec();
  return rea::helper::helperMain(argc, argv, spec);
}
