/* kopt:
{"name": "writes_nothing", "launches": [{"kernel": "gemv", "grid": [1], "block": [32]}]}
*/
// Adversarial: returns without writing y. Must fail as not_written.
KOPT_KERNEL void gemv(const __half* x, const kopt_u8* w, float* y, float* ws, int K, int N, int G) {}
