// A real OpenID provider (the npm package oidc-provider) on 127.0.0.1, for the resource server
// tests: it issues JWT access tokens (RFC 9068) by the client credentials grant, for the
// resource a token request names (RFC 8707), signed with an RSA key made at start (a new `kid`
// each run, so a restart on the same port rotates the keys).
//
// Usage: node tests/ts/oidc_provider.mjs <port or 0>
// Prints the issuer URL on one line once it listens, and stops when its stdin closes.
//
// Clients (secret "<id>-secret"): "alice", "bob" and "carol" may ask for todo.read, todo.write
// and todo.admin; "brief" too, but its tokens live 1 s; "opaque" gets opaque tokens, which
// "mcp-server" (the resource server's own client) checks at the introspection endpoint
// (RFC 7662). Two more, whose ids (a client-credentials token's subject) share their first 140
// characters: LONG_PREFIX + "alice" and LONG_PREFIX + "mallory", LONG_PREFIX being
// "tenants.example.com/users/" followed by "t" to 140 characters (no colon: a client id goes
// in HTTP basic authentication).
//
// Where oidc-provider comes from: scripts/setup installs tests/ts/package.json into
// $AQLGEN_TS_DIR (default <repo>/target/ts-mcp); see elicit_client.mjs.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const repo = resolve(import.meta.dirname, '..', '..');
const dir = resolve(repo, process.env.AQLGEN_TS_DIR || 'target/ts-mcp');
const { default: Provider } = await import(
  pathToFileURL(resolve(dir, 'node_modules/oidc-provider/lib/index.js')).href
);

const port = Number(process.argv[2] || 0);
const scope = 'todo.read todo.write todo.admin';
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const kid = `key-${randomBytes(6).toString('hex')}`;
const jwk = { ...privateKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' };
const longPrefix = 'tenants.example.com/users/'.padEnd(140, 't');
const client = (id) => ({
  client_id: id,
  client_secret: `${id}-secret`,
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  scope,
});

const server = await new Promise((ready) => {
  const listener = (issuer) => {
    const provider = new Provider(issuer, {
      clients: [
        ...['alice', 'bob', 'carol', 'brief', 'opaque'].map(client),
        ...['alice', 'mallory'].map((name) => client(`${longPrefix}${name}`)),
        client('mcp-server'),
      ],
      scopes: scope.split(' '),
      jwks: { keys: [jwk] },
      ttl: { ClientCredentials: (_ctx, _token, client) => (client.clientId === 'brief' ? 1 : 60) },
      features: {
        devInteractions: { enabled: false },
        introspection: { enabled: true },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => undefined,
          useGrantedResource: () => true,
          getResourceServerInfo: (_ctx, resource, requester) => ({
            scope,
            audience: resource,
            accessTokenFormat: requester.clientId === 'opaque' ? 'opaque' : 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
    });
    return provider;
  };
  // The issuer names the port, which is known only once listening on port 0.
  import('node:http').then(({ createServer }) => {
    let handler = null;
    const http = createServer((req, res) => handler(req, res));
    http.listen(port, '127.0.0.1', () => {
      const issuer = `http://127.0.0.1:${http.address().port}`;
      handler = listener(issuer).callback();
      ready({ http, issuer });
    });
  });
});

console.log(server.issuer);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
