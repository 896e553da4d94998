# Turns a binary file (SPIR-V, CUDA fatbin) into a C source defining
#   const unsigned char NAME[]; const size_t NAME_size;
# Usage: cmake -DIN=file -DOUT=file.c -DNAME=symbol -P EmbedBinary.cmake
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" len)
math(EXPR size "${len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
# Break the initializer into lines of 32 bytes so compilers and diffs stay happy.
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){32})" "\\1\n" bytes "${bytes}")
file(WRITE "${OUT}"
  "/* Generated from ${IN} by lib/GPU/EmbedBinary.cmake: do not edit. */\n"
  "#include <stddef.h>\n"
  "_Alignas(16) const unsigned char ${NAME}[] = {\n${bytes}0x00};\n"
  "const size_t ${NAME}_size = ${size};\n")
