#!/bin/bash
# A transformers Llama (Llama-3-8B's layer sizes) on kopt_w8a16's KoptLinear beside PyTorch's int8 path and bf16 weights; then the int4 example, briefly, after its change.
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; cat .device/COMMIT
mkdir -p $OUT/r
cd kernels/w4a16_gemv/python/examples
PYTHONPATH=$OLDPWD/.device/python timeout 400 python3 llama_decode.py --bits 8 --layers 4 --steps 16 2>&1 | grep -v Warning > $OUT/r/llama-w8.txt; echo "rc ${PIPESTATUS[0]}" >> $OUT/r/llama-w8.txt
cat $OUT/r/llama-w8.txt
PYTHONPATH=$OLDPWD/.device/python timeout 150 python3 llama_decode.py --bits 4 --layers 2 --steps 8 --batches 1,16 --prefill 64 2>&1 | grep -v Warning > $OUT/r/llama-w4-brief.txt; echo "rc ${PIPESTATUS[0]}" >> $OUT/r/llama-w4-brief.txt
cat $OUT/r/llama-w4-brief.txt
date -u
