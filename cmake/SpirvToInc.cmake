# cmake -DSPV=<module.spv> -DINC=<module.spv.inc> -P SpirvToInc.cmake
# Writes a SPIR-V module's words as a C initializer list (0x07230203,...), the form glslc's
# -mfmt=num writes, from the binary itself, so each module is compiled once. SPIR-V words are
# little-endian in the file.
file(READ "${SPV}" hex HEX)
string(LENGTH "${hex}" n)
math(EXPR rest "${n} % 8")
if(n EQUAL 0 OR NOT rest EQUAL 0)
  message(FATAL_ERROR "${SPV}: ${n} hex digits, not a whole number of 32-bit words")
endif()
string(REGEX REPLACE "(..)(..)(..)(..)" "0x\\4\\3\\2\\1," words "${hex}")
file(WRITE "${INC}" "${words}\n")
