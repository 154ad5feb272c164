package dev.crashlab.bundle;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Keeps blobs on an S3-compatible object store under {@code <prefix>/ab/cd/<sha256>}, with {@link LocalBlobStore}'s
 * semantics: a blob appears whole or not at all, the same bytes stored twice are one object, readers get streams.
 *
 * <p>NOTE: an object becomes visible only when its upload completes (one PUT, or the completion of a multipart
 * upload for files of {@code partSize} and more), and a call returns only then: the caller commits its database
 * row after the store acknowledged the whole blob, the object store's equivalent of the local store's fsync.
 * Nothing is held in memory whole: files are sent from disk part by part, a stream is spooled to a local file
 * first (its key is its hash, known only at the end). Concurrent puts of the same bytes write the same object.
 */
public final class S3BlobStore implements BlobStore, Closeable {

    private static final Pattern SHA256 = Pattern.compile("[0-9a-f]{64}");
    /** S3's smallest part (except the last). */
    public static final long MIN_PART = 5L * 1024 * 1024;

    /**
     * Where and how to reach the store.
     *
     * @param endpoint the service's address, or null for AWS itself
     * @param accessKeyId null for the SDK's default credentials chain
     * @param partSize upload part size; files at least this large go up in parts
     * @param spool a local folder for streams being stored
     */
    public record Settings(Location location, URI endpoint, String region, String accessKeyId, String secretAccessKey,
                           boolean pathStyle, long partSize, Path spool) {}

    /** A bucket and a key prefix (empty, or ending in '/'). */
    public record Location(String bucket, String prefix) {
        @Override
        public String toString() {
            return "s3://" + bucket + "/" + prefix;
        }
    }

    /**
     * Reads {@code s3://bucket/prefix}.
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    public static Location parse(String address) {
        if (address == null || !address.startsWith("s3://")) {
            throw new IllegalArgumentException("a blob store on S3 is written s3://bucket/prefix, not '" + address + "'");
        }
        String rest = address.substring("s3://".length());
        int slash = rest.indexOf('/');
        String bucket = slash < 0 ? rest : rest.substring(0, slash);
        String prefix = slash < 0 ? "" : rest.substring(slash + 1);
        if (!bucket.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) {
            throw new IllegalArgumentException("'" + bucket + "' in " + address
                    + " is not a bucket name (3 to 63 lowercase letters, digits, dots and hyphens)");
        }
        while (prefix.startsWith("/")) {
            prefix = prefix.substring(1);
        }
        if (!prefix.isEmpty() && !prefix.endsWith("/")) {
            prefix = prefix + "/";
        }
        return new Location(bucket, prefix);
    }

    private final S3Client s3;
    private final Location where;
    private final long partSize;
    private final Path spool;

    /** Connects (no request is made until the first call; {@link #check()} makes one). */
    public S3BlobStore(Settings settings) {
        if (settings.partSize() < MIN_PART) {
            throw new IllegalArgumentException("the S3 part size is " + settings.partSize() + " bytes; S3 needs at least 5 MiB");
        }
        this.where = settings.location();
        this.partSize = settings.partSize();
        this.spool = settings.spool();
        AwsCredentialsProvider credentials = settings.accessKeyId() == null
                ? DefaultCredentialsProvider.builder().build()
                : StaticCredentialsProvider.create(AwsBasicCredentials.create(settings.accessKeyId(),
                        settings.secretAccessKey() == null ? "" : settings.secretAccessKey()));
        var builder = S3Client.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(10))
                        .socketTimeout(Duration.ofMinutes(5)))
                .region(Region.of(settings.region()))
                .credentialsProvider(credentials)
                .forcePathStyle(settings.pathStyle())
                // checksums only where S3 requires them: several S3-compatible servers refuse the newer trailers
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
        if (settings.endpoint() != null) {
            builder.endpointOverride(settings.endpoint());
        }
        this.s3 = builder.build();
        try {
            Files.createDirectories(spool);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the spool folder " + spool, e);
        }
    }

    /** Where the blobs are. */
    public Location location() {
        return where;
    }

    /**
     * Makes sure the bucket answers, for a clear error at start-up instead of at the first upload.
     *
     * @throws IOException saying what the store said
     */
    public void check() throws IOException {
        try {
            s3.headBucket(b -> b.bucket(where.bucket()));
        } catch (SdkException e) {
            throw new BlobStoreUnavailableException("the object store " + where + " cannot be used: " + describe(e), e);
        }
    }

    String keyOf(String sha256) {
        if (!SHA256.matcher(sha256).matches()) {
            throw new IllegalArgumentException("not a lowercase sha-256: " + sha256);
        }
        return where.prefix() + sha256.substring(0, 2) + "/" + sha256.substring(2, 4) + "/" + sha256;
    }

    @Override
    public boolean contains(String sha256) throws IOException {
        String key = keyOf(sha256);
        try {
            s3.headObject(b -> b.bucket(where.bucket()).key(key));
            return true;
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return false;
            }
            throw io("looking for", key, e);
        } catch (SdkException e) {
            throw io("looking for", key, e);
        }
    }

    @Override
    public boolean putFile(Path source, String sha256) throws IOException {
        try {
            if (contains(sha256)) {
                return false;
            }
            upload(source, keyOf(sha256));
            return true;
        } finally {
            Files.deleteIfExists(source); // consumed either way, like the local store
        }
    }

    /**
     * Uploads a copy of a local file under {@code sha256} (the caller vouches for the hash), keeping the file: what
     * {@code crashlab migrate} uses to copy a local store's blobs, which must stay as they are.
     */
    public void putCopy(Path source, String sha256) throws IOException {
        upload(source, keyOf(sha256));
    }

    @Override
    public String put(InputStream in) throws IOException {
        Path temp = Files.createTempFile(spool, "put-", ".tmp");
        try {
            MessageDigest digest = BlobStore.sha256();
            try (OutputStream out = new DigestOutputStream(Files.newOutputStream(temp), digest)) {
                in.transferTo(out);
            }
            String sha = HexFormat.of().formatHex(digest.digest());
            putFile(temp, sha);
            return sha;
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    private void upload(Path file, String key) throws IOException {
        long size = Files.size(file);
        if (size < partSize) {
            try {
                s3.putObject(b -> b.bucket(where.bucket()).key(key).contentLength(size), RequestBody.fromFile(file));
            } catch (SdkException e) {
                throw io("storing", key, e);
            }
            return;
        }
        String uploadId;
        try {
            uploadId = s3.createMultipartUpload(b -> b.bucket(where.bucket()).key(key)).uploadId();
        } catch (SdkException e) {
            throw io("starting the upload of", key, e);
        }
        try {
            List<CompletedPart> parts = new ArrayList<>();
            int number = 1;
            for (long offset = 0; offset < size; offset += partSize, number++) {
                long from = offset;
                long length = Math.min(partSize, size - offset);
                int n = number;
                // each part streams from its region of the file; a retry opens it again
                RequestBody body = RequestBody.fromContentProvider(() -> slice(file, from, length), length,
                        "application/octet-stream");
                String etag = s3.uploadPart(b -> b.bucket(where.bucket()).key(key).uploadId(uploadId).partNumber(n)
                        .contentLength(length), body).eTag();
                parts.add(CompletedPart.builder().partNumber(n).eTag(etag).build());
            }
            s3.completeMultipartUpload(b -> b.bucket(where.bucket()).key(key).uploadId(uploadId)
                    .multipartUpload(CompletedMultipartUpload.builder().parts(parts).build()));
        } catch (SdkException | UncheckedIOException e) {
            abort(key, uploadId);
            throw e instanceof SdkException se ? io("storing", key, se) : ((UncheckedIOException) e).getCause();
        } catch (RuntimeException | Error e) {
            abort(key, uploadId);
            throw e;
        }
    }

    private static InputStream slice(Path file, long from, long length) {
        try {
            FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
            ch.position(from);
            return new java.io.FilterInputStream(Channels.newInputStream(ch)) {
                private long left = length;

                @Override
                public int read() throws IOException {
                    if (left <= 0) {
                        return -1;
                    }
                    int b = super.read();
                    if (b >= 0) {
                        left--;
                    }
                    return b;
                }

                @Override
                public int read(byte[] buf, int off, int len) throws IOException {
                    if (left <= 0) {
                        return -1;
                    }
                    int n = super.read(buf, off, (int) Math.min(len, left));
                    if (n > 0) {
                        left -= n;
                    }
                    return n;
                }
            };
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void abort(String key, String uploadId) {
        try {
            s3.abortMultipartUpload(b -> b.bucket(where.bucket()).key(key).uploadId(uploadId));
        } catch (SdkException ignored) {
            // the periodic sweep (clearIncoming) aborts it later
        }
    }

    @Override
    public InputStream open(String sha256) throws IOException {
        String key = keyOf(sha256);
        try {
            return s3.getObject(b -> b.bucket(where.bucket()).key(key));
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                throw new NoSuchFileException(where + key.substring(where.prefix().length()), null, "no such blob");
            }
            throw io("reading", key, e);
        } catch (SdkException e) {
            throw io("reading", key, e);
        }
    }

    @Override
    public boolean delete(String sha256) throws IOException {
        if (!contains(sha256)) {
            return false;
        }
        String key = keyOf(sha256);
        try {
            s3.deleteObject(b -> b.bucket(where.bucket()).key(key));
            return true;
        } catch (SdkException e) {
            throw io("deleting", key, e);
        }
    }

    @Override
    public List<String> list() throws IOException {
        List<String> out = new ArrayList<>();
        try {
            for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(where.bucket()).prefix(where.prefix())).contents()) {
                String name = o.key().substring(o.key().lastIndexOf('/') + 1);
                if (SHA256.matcher(name).matches() && o.key().equals(keyOf(name))) {
                    out.add(name);
                }
            }
        } catch (SdkException e) {
            throw io("listing", where.prefix(), e);
        }
        return out;
    }

    /**
     * Aborts multipart uploads under the prefix started more than {@code olderThan} ago (a server died mid-upload;
     * their parts are invisible but cost storage). Recent ones may belong to another server still uploading.
     */
    @Override
    public int clearIncoming(Duration olderThan) throws IOException {
        int n = 0;
        Instant before = Instant.now().minus(olderThan);
        try {
            for (MultipartUpload u : s3.listMultipartUploadsPaginator(b -> b.bucket(where.bucket()).prefix(where.prefix())).uploads()) {
                if (u.initiated() != null && u.initiated().isBefore(before)) {
                    abort(u.key(), u.uploadId());
                    n++;
                }
            }
        } catch (SdkException e) {
            // some S3-compatible servers do not list uploads; their own expiry rules clean up
            return 0;
        }
        return n;
    }

    @Override
    public void close() {
        s3.close();
    }

    private IOException io(String doing, String key, SdkException e) {
        String message = doing + " " + "s3://" + where.bucket() + "/" + key + " failed: " + describe(e);
        return unreachable(e) ? new BlobStoreUnavailableException("the object store " + where + " is unavailable: " + message, e)
                : new IOException(message, e);
    }

    /** Whether the failure says the store cannot be used at all (no answer, no bucket, 5xx) rather than one object's fault. */
    private static boolean unreachable(SdkException e) {
        if (e instanceof S3Exception s) {
            return s.statusCode() >= 500 || (s.awsErrorDetails() != null && "NoSuchBucket".equals(s.awsErrorDetails().errorCode()));
        }
        return e instanceof software.amazon.awssdk.core.exception.SdkClientException;
    }

    /** The key of the deployment marker: which deployment owns the blobs under this prefix. */
    public String markerKey() {
        return where.prefix() + MARKER;
    }

    /** The marker object's name under the prefix. */
    public static final String MARKER = "crashlab-deployment";

    /** Reads the deployment identity in the marker object, or null when there is none. */
    public String readMarker() throws IOException {
        try {
            return s3.getObjectAsBytes(b -> b.bucket(where.bucket()).key(markerKey())).asUtf8String().strip();
        } catch (S3Exception e) {
            if (e.statusCode() == 404 && (e.awsErrorDetails() == null || !"NoSuchBucket".equals(e.awsErrorDetails().errorCode()))) {
                return null;
            }
            throw io("reading", markerKey(), e);
        } catch (SdkException e) {
            throw io("reading", markerKey(), e);
        }
    }

    /** Writes the deployment identity into the marker object. */
    public void writeMarker(String identity) throws IOException {
        try {
            s3.putObject(b -> b.bucket(where.bucket()).key(markerKey()).contentType("text/plain"),
                    RequestBody.fromString(identity + "\n"));
        } catch (SdkException e) {
            throw io("writing", markerKey(), e);
        }
    }

    /**
     * Makes sure the bucket exists and takes writes: heads it, then writes and deletes a small probe object.
     *
     * @throws IOException naming the store and what it said
     */
    public void checkWritable() throws IOException {
        check();
        String key = where.prefix() + ".probe-" + java.util.UUID.randomUUID();
        try {
            s3.putObject(b -> b.bucket(where.bucket()).key(key), RequestBody.fromString("probe"));
            s3.deleteObject(b -> b.bucket(where.bucket()).key(key));
        } catch (SdkException e) {
            throw new BlobStoreUnavailableException("the object store " + where + " does not take writes: " + describe(e), e);
        }
    }

    /** Lists every stored blob with the time the store last wrote it (for the sweep's grace period). */
    public java.util.Map<String, Instant> listWithTimes() throws IOException {
        java.util.Map<String, Instant> out = new java.util.HashMap<>();
        try {
            for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(where.bucket()).prefix(where.prefix())).contents()) {
                String name = o.key().substring(o.key().lastIndexOf('/') + 1);
                if (SHA256.matcher(name).matches() && o.key().equals(keyOf(name))) {
                    out.put(name, o.lastModified() == null ? Instant.now() : o.lastModified());
                }
            }
        } catch (SdkException e) {
            throw io("listing", where.prefix(), e);
        }
        return out;
    }

    static String describe(SdkException e) {
        if (e instanceof S3Exception s && s.awsErrorDetails() != null) {
            return s.statusCode() + " " + Optional.ofNullable(s.awsErrorDetails().errorCode()).orElse("")
                    + " " + Optional.ofNullable(s.awsErrorDetails().errorMessage()).orElse("");
        }
        return e.getMessage();
    }
}
