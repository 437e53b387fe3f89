#pragma once
// One check for the renderer tests that compare two ways of reaching a screen (fast paths
// against general ones, the text shortcut against libvterm): every part of the frames agrees.

#include <gtest/gtest.h>

#include <string>

#include "helpers/pty/screen-renderer.h"

namespace rea::helper {

inline void expectSameFrame(const RenderedScreen& actual, const RenderedScreen& expected,
                            const std::string& where) {
  EXPECT_EQ(actual.columns, expected.columns) << where;
  EXPECT_EQ(actual.rows, expected.rows) << where;
  EXPECT_EQ(actual.cursorX, expected.cursorX) << where;
  EXPECT_EQ(actual.cursorY, expected.cursorY) << where;
  EXPECT_EQ(actual.alternate, expected.alternate) << where;
  EXPECT_EQ(actual.lines, expected.lines) << where;
  EXPECT_EQ(actual.serializedState, expected.serializedState) << where;
}

}  // namespace rea::helper
