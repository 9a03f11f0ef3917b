/** Loads an optional peer dependency on first use, with a message that says what to install. */
export async function importPeer<Module>(packages: string, caller: string, load: () => Promise<Module>): Promise<Module> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new Error(`${caller} needs ${packages}: npm install ${packages}`, { cause: error });
    }
    throw error;
  }
}
