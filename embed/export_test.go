package embed

// ProcessCPU exposes processCPU to the benchmarks of package embed_test.
var ProcessCPU = processCPU
