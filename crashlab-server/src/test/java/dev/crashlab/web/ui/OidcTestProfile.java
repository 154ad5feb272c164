package dev.crashlab.web.ui;

import dev.crashlab.testing.OidcProviderResource;
import java.util.List;

/** The UI profile with single sign-on on, against the real OpenID provider {@link OidcProviderResource} runs. */
public class OidcTestProfile extends UiTestProfile {

    @Override
    public List<TestResourceEntry> testResources() {
        return List.of(new TestResourceEntry(OidcProviderResource.class));
    }
}
