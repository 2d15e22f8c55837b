// The native add-on entry of the secp256k1 package (its index.js silently falls back to the JS `elliptic`
// implementation when the add-on fails to load; bindings.js throws instead).
declare module 'secp256k1/bindings.js' {
  import secp256k1 from 'secp256k1';
  export default secp256k1;
}
