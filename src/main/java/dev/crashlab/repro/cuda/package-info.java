/**
 * The JCuda backend: loads the PTX modules built from src/main/cuda and runs the three convolution passes on a GPU. Plain Java.
 */
package dev.crashlab.repro.cuda;
