package dev.crashlab.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.media.Schema;

/**
 * Marks every property of a component schema as required: requests and answers are records, and Jackson writes every
 * record component (a null as {@code null}), so a reader may count on each field being there. A schema that already
 * lists its required fields (a record whose absent fields are left out, {@code KbResource.MatcherView}) keeps its list.
 * The generated UI types ({@code frontend/src/api-types.ts}) thus have no optional field that is always sent.
 */
public class RecordFieldsRequired implements OASFilter {

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        if (openAPI.getComponents() == null || openAPI.getComponents().getSchemas() == null) {
            return;
        }
        Schema fact = openAPI.getComponents().getSchemas().get("Fact");
        if (fact != null) {
            // a fact is one of many records (fact/, found by kb/FactKinds): its kind, its sources, and the fields of that kind
            fact.addProperty("kind", OASFactory.createSchema().addType(Schema.SchemaType.STRING)
                    .description("the fact's record name, e.g. ExitStatus"));
            fact.addProperty("sources", OASFactory.createSchema().addType(Schema.SchemaType.ARRAY)
                    .items(OASFactory.createSchema().ref("SourceRef")));
            fact.setAdditionalPropertiesBoolean(Boolean.TRUE);
            fact.description("One fact: kind and sources, plus the components of the record its kind names");
        }
        if (openAPI.getComponents().getSchemas().containsKey("ReproSpec")) {
            // ReproSpecJson writes (and reads) the spec as its "format": 1 document, not as the record's components
            openAPI.getComponents().addSchema("ReproSpec", OASFactory.createSchema().addType(Schema.SchemaType.OBJECT)
                    .addProperty("format", OASFactory.createSchema().addType(Schema.SchemaType.INTEGER))
                    .additionalPropertiesBoolean(Boolean.TRUE)
                    .description("A reproduction spec as its \"format\": 1 document (snake_case; docs/reproduction.md)"));
        }
        for (Schema schema : openAPI.getComponents().getSchemas().values()) {
            Map<String, Schema> properties = schema.getProperties();
            if (properties == null || properties.isEmpty() || (schema.getRequired() != null && !schema.getRequired().isEmpty())) {
                continue;
            }
            schema.setRequired(new ArrayList<>(List.copyOf(properties.keySet())));
        }
    }
}
