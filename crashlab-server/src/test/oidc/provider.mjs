// A real OpenID Connect provider for OidcLoginTest: the certified `oidc-provider` package, on loopback.
// Usage: node provider.mjs <port> <client-secret> <redirect-uri>...
// Any login name signs in (the package's development login and consent pages); the `groups` claim comes
// from GROUPS below, so the test can sign in a mapped and an unmapped user.
import Provider from 'oidc-provider';

const [port, secret, ...redirects] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;

const GROUPS = {
  tara: ['crashlab-triage', 'unrelated-team'],
  lars: ['crashlab-lab', 'crashlab-viewers'],
};

const provider = new Provider(issuer, {
  clients: [{
    client_id: 'crashlab',
    // native: RFC 8252 loopback redirects, any port (the test server's port is chosen at random)
    application_type: 'native',
    client_secret: secret,
    redirect_uris: redirects,
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  }],
  claims: { openid: ['sub'], profile: ['preferred_username', 'groups'] },
  // the claims of the granted scopes go into the ID token (CrashLab reads its roles from there)
  conformIdTokenClaims: false,
  pkce: { required: () => false },
  cookies: { keys: ['crashlab-test-only-cookie-key'] },
  async findAccount(ctx, id) {
    return {
      accountId: id,
      async claims() {
        return { sub: id, preferred_username: id, groups: GROUPS[id] ?? [] };
      },
    };
  },
});
provider.proxy = false;

provider.listen(Number(port), '127.0.0.1', () => {
  console.log(`oidc-provider listening on ${issuer}`);
});
