/**
 * The JCuda backend: loads the PTX modules built from crashlab-conv/src/main/cuda and runs the three convolution passes on a GPU. Plain Java.
 */
package dev.crashlab.conv.cuda;
