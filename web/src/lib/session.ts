/** The API key the console signs in with: this browser tab only (sessionStorage), never a cookie. */
const STORAGE_KEY = 'promptline.apiKey';

export const session = {
  key: (): string | null => sessionStorage.getItem(STORAGE_KEY),
  signIn: (key: string) => sessionStorage.setItem(STORAGE_KEY, key),
  signOut: () => sessionStorage.removeItem(STORAGE_KEY),
};
