/**
 * What every capability may use to refuse a request in domain terms ({@link dev.crashlab.domain.DomainException});
 * depends on nothing else in CrashLab. {@code web/problem} maps it to HTTP problem documents.
 */
package dev.crashlab.domain;
