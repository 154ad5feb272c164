/**
 * Version compatibility: the sourced CSV tables (framework build to CUDA/cuDNN, CUDA to minimum driver, GPU compute capability), the software stack read from facts, and the checks. Plain Java.
 */
package dev.crashlab.compat;
