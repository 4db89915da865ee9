/**
 * The provider process's runtime (provider/impl/runtime.ts), as deployed dynamic providers load it
 * by package name: a frozen path that re-exports, from the modules holding each concern, the
 * values it exported in 0.2.0. What those values do is tested beside their modules:
 * process/settings.test.ts, process/client.test.ts, process/debugLog.test.ts (and debugLog.engine.test.ts), keyChecks.test.ts
 * and create/recoveryAdoption.test.ts.
 */
import * as runtime from "../../../provider/impl/runtime";
import * as client from "../../../provider/impl/process/client";
import * as debugLog from "../../../provider/impl/process/debugLog";
import * as settings from "../../../provider/impl/process/settings";
import * as keyChecks from "../../../provider/impl/keyChecks";
import * as recoveryAdoption from "../../../provider/impl/create/recoveryAdoption";

test("exports the values of 0.2.0's runtime, each the very one of the module that holds it now", () => {
  const holders = {
    SETTINGS: settings,
    configure: client,
    getClient: client,
    isNotFound: client,
    DEBUG_LOG_BATCH_CHARS: debugLog,
    DEBUG_LOG_FLUSH_MS: debugLog,
    flushDebugLog: debugLog,
    warn: debugLog,
    currentKeyStamp: keyChecks,
    deleteUnlessGone: keyChecks,
    getUnlessGone: keyChecks,
    isCurrentKeyStamp: keyChecks,
    stamped: keyChecks,
    ADOPT_FROM_ENV: recoveryAdoption,
    adoptionCandidates: recoveryAdoption,
  } as const;
  expect(Object.keys(runtime).sort()).toEqual(Object.keys(holders).sort());
  for (const [name, holder] of Object.entries(holders)) {
    const exported = (runtime as Record<string, unknown>)[name];
    expect({
      name,
      same: exported !== undefined && exported === (holder as Record<string, unknown>)[name],
    }).toEqual({
      name,
      same: true,
    });
  }
});
