// What the dashboard adds to the core's types: the services it provides.

/** Pages of a web front end where a person finishes what a mailed link starts; each takes the link's token. */
export interface AccountPages {
  verifyEmail(token: string): string
  signIn(token: string): string
  acceptInvitation(token: string): string
}

declare module '../../proxy/pipeline/plugin.ts' {
  interface PluginServices {
    /** The dashboard's pages for mailed links, where a browser that opens one is sent. */
    readonly accountPages?: AccountPages
  }
}
