package dev.crashlab.repro.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.crashlab.repro.ReproJson;
import dev.crashlab.repro.worker.WorkerMessages.ClaimRequest;
import dev.crashlab.repro.worker.WorkerMessages.ClaimedJob;
import dev.crashlab.repro.worker.WorkerMessages.Completion;
import dev.crashlab.repro.worker.WorkerMessages.Heartbeat;
import dev.crashlab.repro.worker.WorkerMessages.HeartbeatReply;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/**
 * Speaks the worker protocol to a CrashLab server over HTTP with a bearer token:
 * {@code POST /api/lab/claim}, {@code /api/lab/jobs/{id}/heartbeat}, {@code /api/lab/jobs/{id}/complete}.
 *
 * <p>NOTE: a refusal (wrong token, workers disabled, a job no longer this worker's) becomes an
 * {@link IOException} carrying the server's problem {@code detail}, so the worker logs what to fix.
 */
public final class HttpJobSource implements JobSource {

    private static final ObjectMapper JSON = ReproJson.mapper();

    private final URI server;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /** Creates a client of the server at {@code server} ({@code http://host:8080}). */
    public HttpJobSource(URI server, String token) {
        String s = server.toString();
        this.server = URI.create(s.endsWith("/") ? s : s + "/");
        this.token = token;
    }

    @Override
    public Optional<ClaimedJob> claim(ClaimRequest me) throws IOException, InterruptedException {
        HttpResponse<String> r = post("api/lab/claim", me);
        if (r.statusCode() == 204) {
            return Optional.empty();
        }
        return Optional.of(JSON.readValue(r.body(), ClaimedJob.class));
    }

    @Override
    public HeartbeatReply heartbeat(long jobId, String worker, String progress) throws IOException, InterruptedException {
        return JSON.readValue(post("api/lab/jobs/" + jobId + "/heartbeat", new Heartbeat(worker, progress)).body(),
                HeartbeatReply.class);
    }

    @Override
    public void complete(long jobId, Completion completion) throws IOException, InterruptedException {
        post("api/lab/jobs/" + jobId + "/complete", completion);
    }

    private HttpResponse<String> post(String path, Object body) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(server.resolve(path))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                .build();
        HttpResponse<String> r;
        try {
            r = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            // a refused connection carries no message of its own; say where and what
            throw new IOException("cannot reach " + server.resolve(path) + ": " + e, e);
        }
        if (r.statusCode() >= 300) {
            throw new IOException(server.resolve(path) + " answered " + r.statusCode() + ": " + detail(r.body()));
        }
        return r;
    }

    private static String detail(String body) {
        try {
            JsonNode problem = JSON.readTree(body);
            if (problem != null && problem.hasNonNull("detail")) {
                return problem.get("detail").asText();
            }
        } catch (IOException e) {
            // not a problem document; show the start of what came back
        }
        return body.length() > 300 ? body.substring(0, 300) + "..." : body;
    }
}
