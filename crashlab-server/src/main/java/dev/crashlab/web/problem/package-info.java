/**
 * RFC 9457 problem documents and the exception mappers (domain, bundle rejections, JAX-RS and I/O errors): no stack trace reaches a client.
 */
package dev.crashlab.web.problem;
