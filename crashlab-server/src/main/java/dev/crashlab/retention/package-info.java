/**
 * Retention: bundles older than {@code crashlab.retention.days} are deleted by a scheduled sweep unless pinned or
 * confirmed, and a per-user storage quota refuses uploads past {@code crashlab.retention.quota}. Every deletion
 * and refusal is written to the audit log. Quarkus beans; no HTTP.
 */
package dev.crashlab.retention;
