/** The types of client-types.js, for the test that checks libs/client/src/openapi.ts is fresh. */
export declare const GENERATED: string;
export declare function clientTypes(): Promise<string>;
