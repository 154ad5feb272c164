/**
 * Bundles: safe unpacking of uploads (BundleUnpacker), the content-addressed blob store, the Bundle and Artifact rows and BundleService, which stores an upload. The unpacker, blob store and limits are plain Java; the rest are Quarkus beans and entities.
 */
package dev.crashlab.bundle;
