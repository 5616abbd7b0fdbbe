// Runs in the parent jest process, before workers start: the Pact FFI library reads the real environment.
module.exports = async () => {
  process.env.PACT_DO_NOT_TRACK = 'true';
};
