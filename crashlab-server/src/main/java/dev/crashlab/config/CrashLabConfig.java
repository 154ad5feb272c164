package dev.crashlab.config;

import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.nio.file.Path;
import java.util.Optional;

/** Typed CrashLab settings; each one is also an environment variable (crashlab.data-dir = CRASHLAB_DATA_DIR). */
@ConfigMapping(prefix = "crashlab")
public interface CrashLabConfig {

    /** Folder holding the embedded database, the blob store and scratch space for uploads. */
    @WithDefault("./data")
    Path dataDir();

    /** Limits on what one upload may be and expand to. */
    Upload upload();

    /** Where the knowledge base and compat tables are read from. */
    Kb kb();

    /** The knowledge base's location: folders beside the app, else the copy packaged in the jar. */
    interface Kb {
        /** The articles folder (env CRASHLAB_KB_DIR); unset: ./kb-articles if it exists, else the packaged copy. */
        Optional<Path> dir();

        /** The compat tables folder (env CRASHLAB_KB_COMPAT_DIR); unset: compat/ beside the articles, else the packaged copy. */
        Optional<Path> compatDir();

        /**
         * Whether KB search also ranks by meaning (the in-process all-MiniLM-L6-v2 model: about 0.7 GB more memory
         * once loaded, on the first search or by the warm-up).
         */
        @WithDefault("true")
        boolean meaning();

        /** Whether the model is loaded and the articles embedded in the background after start-up, not on the first search. */
        @WithDefault("true")
        boolean meaningWarmup();
    }

    /** Reading bundles in the background after upload, and what reading one bundle may cost. */
    Ingest ingest();

    /** Background reading: the worker pool and the per-bundle budgets (a budget reached is said on the bundle page). */
    interface Ingest {
        /** Bundles read at once (the worker pool's size); more wait in line. */
        @WithDefault("2")
        int workers();

        /** Bytes read from one bundle's files, all together. */
        @WithDefault("8G")
        MemorySize maxBytes();

        /** Text lines kept from one bundle for the diagnosis's text matchers, all files together. */
        @WithDefault("200000")
        long maxLinesKept();

        /** Characters of those lines, all together (bounds their memory). */
        @WithDefault("33554432")
        long maxKeptChars();

        /** Facts kept from one bundle. */
        @WithDefault("200000")
        long maxFacts();

        /** How long reading one bundle may take; files after that are left unread. */
        @WithDefault("30m")
        java.time.Duration maxTime();

        /**
         * For tests of a server killed mid-way only: waits this long after reading each file and again before
         * diagnosing, so that a test can kill the server while a bundle is being read or diagnosed. 0 (the
         * default) waits not at all; never set it in use.
         */
        @WithDefault("0s")
        java.time.Duration testPause();

        /** How long a request for a bundle still being read waits for it before answering 409. */
        @WithDefault("30s")
        java.time.Duration readWait();

        /**
         * How long a server's hold on a bundle it reads lasts without renewal (it renews every third of this while it
         * reads); a bundle whose server died is taken over by another server this long after its last renewal. Every
         * server looks for such bundles every half of this (env CRASHLAB_INGEST_LEASE).
         */
        @WithDefault("60s")
        java.time.Duration lease();
    }

    /** Accounts, sessions and API tokens. */
    dev.crashlab.config.AuthConfig auth();

    /** Optional single sign-on with OpenID Connect ({@code crashlab.oidc.*}). */
    dev.crashlab.config.OidcConfig oidc();

    /**
     * An API token value (env CRASHLAB_ADMIN_TOKEN) that start-up makes sure exists with the admin role, for
     * provisioning and automation; unset: none is made.
     */
    Optional<String> adminToken();

    /** Secret redaction at upload. */
    Redaction redaction();

    /** Secrets (cloud keys, tokens, private keys, passwords) replaced by {@code <redacted:kind>} before storing. */
    interface Redaction {
        /** On by default (env CRASHLAB_REDACTION_ENABLED=false turns it off). */
        @WithDefault("true")
        boolean enabled();
    }

    /** Web hardening: which Host names the server answers to. */
    Http http();

    /** Host and Origin checks (see docs/operators.md, "Hardening defaults"). */
    interface Http {
        /**
         * Host names (without port) requests may carry besides the loopback names (localhost, 127.0.0.1,
         * [::1]) and the configured {@code quarkus.http.host}; {@code *} allows any (e.g. behind a proxy
         * that checks Host itself). Env CRASHLAB_HTTP_ALLOWED_HOSTS, comma-separated.
         */
        Optional<java.util.List<String>> allowedHosts();

        /** Most server-sent event streams (live job views) open at once, all callers together. */
        @WithDefault("200")
        int maxEventStreams();

        /** Most server-sent event streams one caller (a user, or a token without an owner) may hold open. */
        @WithDefault("8")
        int maxEventStreamsPerUser();
    }

    /** The past-crash index on disk and how it keeps up with other servers (docs/operators.md, "Several servers"). */
    CrashIndexSettings crashIndex();

    /** Where the past-crash index lives and how often it reads the database's change log. */
    interface CrashIndexSettings {
        /** Its folder (env CRASHLAB_CRASH_INDEX_DIR); unset: {@code <data-dir>/crash-index}. One server per folder. */
        Optional<Path> dir();

        /** How often each server reads the change log for what other servers changed. */
        @WithDefault("500ms")
        java.time.Duration pollInterval();

        /**
         * How long a missing change id (a transaction that took its number but had not committed yet) is asked for
         * again before it is taken for rolled back.
         */
        @WithDefault("60s")
        java.time.Duration gapWait();

        /** How long change-log rows are kept; a server whose index is older than that rebuilds it from the database. */
        @WithDefault("7d")
        java.time.Duration logRetention();

        /**
         * How often a server compares its index with the database (counts, and a checksum of bundle ids and entries)
         * and indexes again what differs: changes that bypassed the change log, such as hand SQL or a restore (env
         * CRASHLAB_CRASH_INDEX_VERIFY_INTERVAL); 0 turns it off.
         */
        @WithDefault("15m")
        java.time.Duration verifyInterval();
    }

    /** Where blobs live: env CRASHLAB_BLOB_STORE, unset for {@code <data-dir>/blobs}, or {@code s3://bucket/prefix}. */
    Optional<String> blobStore();

    /** The S3-compatible object store, when {@code blob-store} is an {@code s3://} address. */
    S3 s3();

    /**
     * The start-up sweep of unreferenced blobs leaves alone every blob written less than this long before the newest
     * bundle in the database (or before now, whichever is earlier): uploads still in flight on another server, and
     * everything uploaded after the backup a restored database was taken from (env CRASHLAB_BLOB_GRACE).
     */
    @WithDefault("1h")
    java.time.Duration blobGrace();

    /**
     * How often one of the servers sweeps the blob store: unreferenced blobs (after the grace period), multipart
     * uploads older than an hour, claims of uploads that died (env CRASHLAB_BLOB_SWEEP_INTERVAL). The first sweep
     * runs at start-up.
     */
    @WithDefault("1h")
    java.time.Duration blobSweepInterval();

    /** Connection to the object store (env CRASHLAB_S3_ENDPOINT, CRASHLAB_S3_REGION, ...). */
    interface S3 {
        /** The service's address, e.g. {@code https://minio.example:9000}; unset: AWS for the region. */
        Optional<java.net.URI> endpoint();

        /** The region the bucket is in (any value for most S3-compatible servers). */
        @WithDefault("us-east-1")
        String region();

        /** Access key id; unset: the AWS SDK's default credentials (environment, profile, instance role). */
        Optional<String> accessKeyId();

        /** Secret access key, with {@code access-key-id}. */
        Optional<String> secretAccessKey();

        /** Addresses the bucket in the path ({@code host/bucket/key}) instead of the host name: most self-hosted stores need it. */
        @WithDefault("false")
        boolean pathStyle();

        /** Blobs at least this large are uploaded in parts of this size (at least 5M, S3's smallest part). */
        @WithDefault("16M")
        io.quarkus.runtime.configuration.MemorySize partSize();
    }

    /** Reproduction jobs and workers. */
    dev.crashlab.config.LabConfig lab();

    /** Upload limits: requests over them are refused with a 4xx problem, never half-stored. */
    interface Upload {
        /** Largest accepted HTTP request body (the raw archive, or all multipart parts together). */
        @WithDefault("1G")
        MemorySize maxRequestSize();

        /** Largest total size the bundle's files may expand to once archives are unpacked. */
        @WithDefault("4G")
        MemorySize maxExpandedSize();

        /** Most files one bundle may hold after unpacking. */
        @WithDefault("10000")
        int maxFiles();

        /** Deepest nesting of archives inside archives (1 = the uploaded archive only). */
        @WithDefault("3")
        int maxDepth();

        /** Highest expansion ratio of an archive entry before it is refused as a possible zip bomb. */
        @WithDefault("100")
        int maxRatio();

        /**
         * Bytes an entry may expand to before its ratio is checked. Real logs full of repeated lines compress
         * beyond 100:1, so small ones must pass; the expanded-size limit bounds the disk either way.
         */
        @WithDefault("16M")
        MemorySize ratioGrace();

        /**
         * Uploads unpacked, redacted and stored at once (the rest wait for a turn, timed as {@code upload-slot} on
         * {@code /q/metrics}); 0 (the default) means one per core. They run on threads of low priority (UploadSlots), so
         * that report reads and searches get the cores first while uploads stream in.
         */
        @WithDefault("0")
        int concurrency();
    }
}
