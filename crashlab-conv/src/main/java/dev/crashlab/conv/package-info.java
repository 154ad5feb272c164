/**
 * The convolution engine: a ConvProblem (one layer's shapes, dtype and layout), the ConvBackend interface, the
 * CPU backend (packed GEMM micro-kernel on the Vector API, the shift and few-channel paths) and ConvOracle, the
 * double-precision element oracle every backend is checked against. Imports nothing else from CrashLab.
 */
package dev.crashlab.conv;
