/** Jest for the example: TypeScript through ts-jest; a deployment takes tens of seconds. */
module.exports = {
  testEnvironment: "node",
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json" }] },
  testMatch: ["**/*.test.ts"],
  testTimeout: 300000,
};
