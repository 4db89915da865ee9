/**
 * Which of some modules a piece of code loads: runs `fn` in a fresh module registry where each
 * named module is the real one, but noted (in `loaded`, in order) when it is first required.
 * `fn` gets the list as it grows, to look at it between steps.
 */
export async function loadedWith<T>(
  names: string[],
  fn: (loaded: readonly string[]) => T | Promise<T>,
): Promise<{ loaded: string[]; value: T }> {
  const loaded: string[] = [];
  let value!: T;
  try {
    await jest.isolateModulesAsync(async () => {
      for (const name of names) {
        jest.doMock(name, () => {
          loaded.push(name);
          return jest.requireActual(name);
        });
      }
      value = await fn(loaded);
    });
  } finally {
    for (const name of names) jest.dontMock(name);
  }
  return { loaded, value };
}
