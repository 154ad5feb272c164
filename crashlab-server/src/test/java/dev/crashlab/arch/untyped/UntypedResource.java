package dev.crashlab.arch.untyped;

import com.fasterxml.jackson.databind.node.ObjectNode;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import java.util.List;
import java.util.Map;

/** A fixture for ArchitectureTest: every method here answers something the OpenAPI document cannot describe. */
public class UntypedResource {

    /** A record that hides an untyped tree one level down. */
    public record Wrapper(String id, List<ObjectNode> trees) {}

    @GET
    public ObjectNode tree() {
        return null;
    }

    @GET
    public Map<String, Object> map() {
        return null;
    }

    @POST
    public Wrapper wrapped() {
        return null;
    }
}
