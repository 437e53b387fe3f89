// rea-shim: the shim helper (README.md). The skeleton is helpers/common/helper-main; the hooks
// are in server.c++.
#include "helpers/common/helper-main.h"
#include "helpers/shim/server.h"

int main(int argc, char** argv) {
  auto spec = rea::helper::shimHelperSpec();
  return rea::helper::helperMain(argc, argv, spec);
}
