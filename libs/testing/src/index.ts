/**
 * The storage drivers every engine-level test runs on. Test code only: this package depends on all three
 * drivers so that the libraries whose tests use it do not have to.
 */
export { drivers, sealedDrivers, type TestDriver } from "./drivers.js";
export { StatementCounter, type StatementLog } from "./statements.js";
