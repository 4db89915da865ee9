/**
 * Public entry point of the GitOps checks as a library (`pulumi-service/gitops`): what the
 * command line `service-drift` runs, as typed functions returning the same data as its
 * `--format json` output, for a team driving drift from the Automation API, an operator or a
 * scheduler rather than spawning a process. Re-exports only.
 *
 * - {@link runDriftReport} (gitops/drift.ts): the drift report of a stack, a {@link DriftReport};
 *   throws {@link DriftError}.
 * - {@link runUnmanagedCheck} (gitops/unmanaged.ts): the subscriptions and destinations of
 *   accounts in none of the given stacks' states, an {@link UnmanagedReport}; throws
 *   {@link UnmanagedError}. {@link readStackStates} and {@link findUnmanaged} are its two steps;
 *   {@link bulkImportFile} the `pulumi import --file` document of its result.
 * - {@link runPreviewSummary} (gitops/preview.ts): a stack's `pulumi preview` per resource and
 *   the guard's verdict, a {@link PreviewSummary}; throws {@link PreviewError}.
 *   {@link analyzePreviewChanges} reads a preview's engine events, {@link applyGuard} and
 *   {@link checkGuardRule} apply and check a guard.
 * - The text and Markdown forms the command line prints: {@link formatReport},
 *   {@link formatMarkdown}, {@link formatUnmanagedText}, {@link formatUnmanagedMarkdown},
 *   {@link formatPreview}, {@link formatPreviewMarkdown}.
 * - {@link EXIT_CODES}: 0 (clean), 2 (found), 1 (error).
 *
 * @module pulumi-service/gitops
 */
export {
  DriftError,
  runDriftReport,
  type DriftOptions,
  type DriftPhase,
  type DriftReport,
  type DriftedResource,
  type IgnoredResource,
  type PendingChange,
  type PropertyDrift,
} from "./drift";
export {
  ABUSE_REPORTS_NOT_CHECKED,
  NATIVE_TYPES,
  UnmanagedError,
  bulkImportFile,
  findUnmanaged,
  parseStackRef,
  readStackStates,
  runUnmanagedCheck,
  type AccountSummary,
  type ExcludedResource,
  type Exclusions,
  type ImportEntry,
  type ListedKind,
  type ServiceAccount,
  type StackRef,
  type StackState,
  type StackSummary,
  type UnmanagedOptions,
  type UnmanagedPhase,
  type UnmanagedReport,
  type UnmanagedResource,
} from "./unmanaged";
export {
  GUARD_OPS,
  PreviewError,
  analyzePreviewChanges,
  applyGuard,
  checkGuardRule,
  runPreviewSummary,
  type GuardOp,
  type GuardResult,
  type GuardRule,
  type PreviewOptions,
  type PreviewResource,
  type PreviewSummary,
} from "./preview";
export { formatPreview, formatPreviewMarkdown } from "./preview-format";
export { formatMarkdown, formatReport } from "./format";
export { formatUnmanagedMarkdown, formatUnmanagedText } from "./unmanaged-format";
export { EXIT_CODES, type ExitCode } from "./io";
