// cosmos.bank.v1beta1.Query handlers, protobuf bytes in and out. The gRPC server and the CometBFT-style
// abci_query both reach them through KestrelApp.query(path, data, height), so both channels run the same code.
// Checks and messages follow the SDK keeper (x/bank/keeper/grpc_query.go).
import { InvalidParamsError } from '../../errors/index.ts';
import { decodeAccAddress } from '../../primitives/bech32.ts';
import type { BlockRecord } from '../../store/records.ts';
import { DENOM_REGEX } from '../genesis.ts';
import type { Bank } from './bank.ts';
import { paginate } from './pagination.ts';
import { decodeRequest, encodeCoinsPage, encodeSingleCoin, type Coin } from './proto.ts';

/** A module that answers ABCI queries whose path starts with `prefix`. */
export interface QueryModule {
  readonly prefix: string;
  query(path: string, data: Uint8Array, block: BlockRecord): Promise<Uint8Array>;
}

type Handler = (data: Uint8Array, block: BlockRecord) => Promise<Uint8Array>;

const utf8 = new TextEncoder();
const denomKey = (c: Coin) => utf8.encode(c.denom);

/** The bank query service, routed by full gRPC method path. */
export class BankQueries implements QueryModule {
  readonly prefix = '/cosmos.bank.v1beta1.Query/';
  private readonly handlers: Record<string, Handler>;

  constructor(
    private readonly bank: Bank,
    private readonly bech32Prefix: string,
  ) {
    const allBalances: Handler = async (data, block) => {
      const req = decodeRequest(data, { 1: 'address' }, 2);
      const addr = this.address(req.strings.address!);
      const { page, res } = paginate(await this.bank.balances(addr, block), denomKey, req.page);
      return encodeCoinsPage(page, res);
    };
    this.handlers = {
      '/cosmos.bank.v1beta1.Query/AllBalances': allBalances,
      // No vesting or locks on this chain: everything held is spendable.
      '/cosmos.bank.v1beta1.Query/SpendableBalances': allBalances,
      '/cosmos.bank.v1beta1.Query/Balance': async (data, block) => {
        const req = decodeRequest(data, { 1: 'address', 2: 'denom' });
        const denom = this.denom(req.strings.denom!);
        const addr = this.address(req.strings.address!);
        return encodeSingleCoin({ denom, amount: await this.bank.balance(addr, denom, block) });
      },
      '/cosmos.bank.v1beta1.Query/TotalSupply': async (data, block) => {
        const req = decodeRequest(data, {}, 1);
        const { page, res } = paginate(this.bank.supply(block), denomKey, req.page);
        return encodeCoinsPage(page, res);
      },
      '/cosmos.bank.v1beta1.Query/SupplyOf': async (data, block) => {
        const denom = this.denom(decodeRequest(data, { 1: 'denom' }).strings.denom!);
        return encodeSingleCoin({ denom, amount: this.bank.supplyOf(denom, block) });
      },
    };
  }

  /** The method paths this module serves (the gRPC server registers exactly these). */
  paths(): string[] {
    return Object.keys(this.handlers);
  }

  /** Runs the handler of `path` on a request at `block`. */
  async query(path: string, data: Uint8Array, block: BlockRecord): Promise<Uint8Array> {
    const h = this.handlers[path];
    if (!h) throw new InvalidParamsError(`unknown query path ${path}`);
    return h(data, block);
  }

  private address(text: string): Uint8Array {
    try {
      return decodeAccAddress(text, this.bech32Prefix);
    } catch (e) {
      throw new InvalidParamsError(`invalid address: ${(e as Error).message}`);
    }
  }

  private denom(d: string): string {
    if (!DENOM_REGEX.test(d)) throw new InvalidParamsError(`invalid denom: ${d}`);
    return d;
  }
}
