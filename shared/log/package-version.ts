/**
 * This package's version, as package.json says it (a test holds the two
 * equal): part of an agent's derived version, since a new a2-aws may change
 * how the same options behave. A constant, not a read of package.json, so
 * it is the same in the sources, in dist/ and in a bundle.
 */
export const A2_PACKAGE_VERSION = '0.1.0'
