# Writes a C++ source defining `const char* const <SYMBOL>` holding the text of
# <INPUT>, so kernels and prompts ship inside the binary. Run with cmake -P.
file(READ "${INPUT}" content)
set(delim "kopt_embed_")
file(WRITE "${OUTPUT}" "// Generated from ${INPUT}; do not edit.\nnamespace kopt { namespace embedded {\nextern const char* const ${SYMBOL};\nconst char* const ${SYMBOL} = R\"${delim}(${content})${delim}\";\n} }\n")
